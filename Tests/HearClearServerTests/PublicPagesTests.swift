import Foundation
import HearClearAnalysis
import HearClearCore
import Hummingbird
import HummingbirdTesting
import TestCluster
import Testing

@testable import HearClearServer

/// The public pages as the router serves them, on both stores: no login, HTML for every answer
/// (errors too), the venue's grids as tables a screen reader can read, and the day in plain words.
@Suite struct PublicPagesTests {
    func page(_ client: any TestClientProtocol, _ uri: String, status: HTTPResponse.Status = .ok) async throws -> String {
        try await client.execute(uri: uri, method: .get) { response in
            #expect(response.status == status, "\(uri)")
            #expect(response.headers[.contentType] == "text/html; charset=utf-8", "\(uri)")
            #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            return String(buffer: response.body)
        }
    }

    /// A restaurant measured on a Friday (2026-11-20): 17:00 and 18:00 UTC quiet enough for a
    /// normal voice (SIL 45; a raised one with hearing loss), 20:00 needing a loud one (SIL 60; a
    /// very loud one with hearing loss).
    func measureBistro(_ client: any TestClientProtocol) async throws {
        let token = try await client.registerDevice()
        _ = try await client.putVenue("bistro", token: token, timezone: "UTC", name: "Bistro <Quiet> & Co", kind: .restaurant)
        for (hour, sil) in [(17, 45.0), (18, 45.0), (20, 60.0)] {
            let checkIn = ConversationTests.withBands(makeCheckIn(venue: "bistro", start: "2026-11-20T\(hour):00:00Z", level: -50), sil: sil)
            #expect(try await client.execute(uri: "/api/v2/checkins", method: .post, headers: bearer(token), body: try json(CheckInV2(checkIn))).status == .created)
        }
    }

    @Test(arguments: StoreKind.allCases) func aVenuePageSaysWhenYouCanTalkThere(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            try await measureBistro(client)
            let before = WeekdayHour(Date(), in: .gmt)
            let html = try await page(client, "/venues/bistro")
            let after = WeekdayHour(Date(), in: .gmt)
            // The hour it is now at the venue (UTC), first under "Can you talk there?".
            #expect([before, after].contains { html.contains("<p class=\"now\"><strong>Now, \($0.weekday.rawValue.capitalized) \(String(format: "%02d", $0.hour)):00 at the venue: ") }, "\(html)")
            #expect(html.contains(#"Hard of hearing, or wearing hearing aids? <a href="/venues/bistro?hearing_loss=true">"#))
            #expect(html.contains("<title>Bistro &lt;Quiet&gt; &amp; Co · HearClear</title>"))
            #expect(html.contains(#"<p class="overall">A restaurant · Overall <strong>"#))
            #expect(html.contains("On Fridays, at normal voice you will be understood at 1 m before 20:00; after that, expect to raise your voice (loud voice at 20:00)."))
            // Two grids of 24 hours × 7 weekdays, each cell with words for screen readers.
            #expect(html.components(separatedBy: "<td class=\"").count - 1 == 2 * 168)
            #expect(html.contains(#"<span class="visually-hidden">Friday 20:00: loud voice</span>"#))
            // 19:00, between the measured hours, nobody measured: estimated, marked and said so.
            #expect(html.contains(#"<td class="tone-"#) && html.contains(#" estimated"><span aria-hidden="true">~"#), "\(html)")
            #expect(html.contains("Friday 19:00: no one has measured yet; similar hours suggest a "))
            // The quietest times list estimated hours after the measured ones of the same voice.
            let quiet = try #require(html.components(separatedBy: "<table class=\"quiet\">").last?.components(separatedBy: "</table>").first)
            let rows = quiet.components(separatedBy: "<tr><th scope=\"row\">").dropFirst()
            #expect(rows.prefix(2).allSatisfy { $0.contains("low confidence") && $0.contains("normal voice") }, "\(quiet)")
            #expect(rows.dropFirst(2).contains { $0.contains("estimated: nobody measured this hour yet") && $0.contains("about ") }, "\(quiet)")
            #expect(html.contains(#"<span class="visually-hidden">Friday 17:00: 60.0 dB(A), quiet, low confidence</span>"#))
            #expect(html.contains(#"<th scope="row">Friday 17:00 <span class="confidence">low confidence</span></th>"#) && !html.contains("<script"))
            // The page explains confidence by the rule it uses (devices, days, age), not a count.
            #expect(html.contains("grows with how many phones measured an hour and on how many days") && !html.contains("number of check-ins"))
            // Every second at 59.5 or 60.5 dB(A): the spread in words, and each quiet hour's range.
            #expect(html.contains("Eight seconds in ten it is from 60 to 61 dB(A); half the time it is louder than 61 dB(A)."), "\(html)")
            #expect(html.contains("<td>60.0 dB(A)</td><td>60–61 dB(A)</td>"))
            // Was: green "quiet" beside a loud voice for the same hour, and nothing to say why.
            #expect(html.contains(#"<p class="note">A label names a level on this server’s scale, not whether you can talk there: the voice grid above says that. At 70 dB(A), still “quiet”, a listener 1 m away typically needs a loud voice.</p>"#))

            let empty = try await page(client, "/venues/nowhere", status: .notFound)
            #expect(empty.contains("There is no venue with the id “nowhere”"))
        }
    }

    /// Was: "Overall 60.0 dB(A) · 1 check-ins ·" on the page of a venue measured once, as every
    /// venue's first check-in from the measuring page leaves it.
    @Test(arguments: StoreKind.allCases) func aVenueMeasuredOnceSaysOneCheckIn(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("once", token: token, timezone: "UTC", name: "Once")
            let checkIn = makeCheckIn(venue: "once", start: "2026-11-20T18:00:00Z", level: -50)
            #expect(try await client.execute(uri: "/api/v2/checkins", method: .post, headers: bearer(token), body: try json(CheckInV2(checkIn))).status == .created)
            let html = try await page(client, "/venues/once")
            #expect(html.contains(" · 1 check-in · "), "\(html)")
        }
    }

    /// Was: the public pages answered for typical hearing only, though the answers carry the
    /// effort with hearing loss (the API's `effort_hearing_loss`, `hearclear loudness --effort
    /// --hearing-loss`): the people the service is for most could not read theirs without a terminal.
    @Test(arguments: StoreKind.allCases) func aListenerWithHearingLossIsAnsweredOnThePage(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            try await measureBistro(client)
            let html = try await page(client, "/venues/bistro?hearing_loss=true")
            #expect(html.contains("Answered for a listener with hearing loss, who needs speech 7 dB further above the noise than typical hearing does."))
            #expect(html.contains(#"<a href="/venues/bistro">Answer for typical hearing</a>"#))
            #expect(html.contains("On Fridays, expect to raise your voice at every hour measured: a raised voice at best, a very loud voice at the loudest."), "\(html)")
            #expect(html.contains(#"<span class="visually-hidden">Friday 20:00: very loud voice</span>"#))
            #expect(html.contains(#"<span class="visually-hidden">Friday 17:00: raised voice</span>"#))
            #expect(html.contains("Voice a listener with hearing loss at 1 m understands"))
            #expect(html.contains("At 70 dB(A), still “quiet”, a listener with hearing loss 1 m away typically cannot follow even a very loud voice."))
            let quiet = try #require(html.components(separatedBy: "<table class=\"quiet\">").last?.components(separatedBy: "</table>").first)
            let rows = quiet.components(separatedBy: "<tr><th scope=\"row\">").dropFirst()
            #expect(rows.prefix(2).allSatisfy { $0.contains("low confidence") && $0.contains("raised voice") }, "\(quiet)")
            // An estimated hour says the louder voice its interval allows with hearing loss too.
            #expect(html.contains("Friday 19:00: no one has measured yet; similar hours suggest a "))
            // The API's quiet times answer the same way when asked.
            let answer = try await client.execute(uri: "/api/v2/venues/bistro/quiet-times?weekday=friday&hearing_loss=true", method: .get) {
                try decode(QuietTimes.self, $0)
            }
            #expect(answer.hours.first.map { ($0.hour, $0.effortHearingLoss) } ?? (0, .relaxed) == (17, .raised))
            let wrong = try await page(client, "/venues/bistro?hearing_loss=maybe", status: .badRequest)
            #expect(wrong.contains("hearing_loss must be true or false"))
            // The choice goes on from page to page: to the search, and from it to the venues found.
            #expect(html.contains(#"<a href="/venues?hearing_loss=true">Find another venue</a>"#))
            let search = try await page(client, "/venues?hearing_loss=true&q=bistro")
            #expect(search.contains(#"name="hearing_loss" value="true" checked>"#) && search.contains(#"<a href="/venues/bistro?hearing_loss=true">"#), "\(search)")
            let typical = try await page(client, "/venues?q=bistro")
            #expect(!typical.contains(" checked>") && typical.contains(#"<a href="/venues/bistro">"#))
        }
    }

    @Test func theSearchFindsByNameAndByPlaceAndSaysWhatIsWrong() async throws {
        try await withApp { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("quiet", token: token, name: "The Quiet Table", latitude: -33.8688, longitude: 151.2093)
            _ = try await client.putVenue("far", token: token, name: "Far Away Bar", latitude: -34.5, longitude: 151.2093)
            let start = try await page(client, "/venues")
            #expect(start.contains(#"<form class="search" method="get" action="/venues" role="search">"#) && !start.contains("Venues found"))
            #expect(start.contains(#"<button type="button" id="locate" data-field="near" data-then="submit" hidden>"#) && start.contains(#"<script src="/public/locate.js">"#))
            let byName = try await page(client, "/venues?q=quiet")
            #expect(byName.contains(#"<a href="/venues/quiet">The Quiet Table</a>"#) && !byName.contains("Far Away"))
            let near = try await page(client, "/venues?near=-33.87,151.21")
            #expect(near.contains("The Quiet Table") && near.contains("m away") && !near.contains("Far Away"))
            let wrong = try await page(client, "/venues?near=sydney", status: .badRequest)
            #expect(wrong.contains("Type the place as latitude,longitude") && wrong.contains(#"value="sydney""#))
            // Was: followed by "Venues found" and "No venue found", of a search that was not made.
            #expect(!wrong.contains("Venues found") && !wrong.contains("No venue found"), "\(wrong)")
            let none = try await page(client, "/venues?q=nothing-like-it")
            #expect(none.contains("No venue found"))
        }
    }

    /// A place the search did not find can be added from the phone: the search leads to the add
    /// page with what it was given, which holds the form its script sends to the API (the browser
    /// test adds one through it), and may talk to this server but not use the microphone.
    @Test func aVenueTheSearchDidNotFindCanBeAdded() async throws {
        try await withApp { client, _ in
            let none = try await page(client, "/venues?q=Caf%C3%A9+%26+Bar+No+1&near=-33.87,151.21")
            #expect(none.contains(#"<a href="/add-venue?name=Caf%C3%A9%20%26%20Bar%20No%201&amp;near=-33.87%2C151.21">Not listed? Add it and measure it</a>"#), "\(none)")
            #expect(try await page(client, "/venues?q=x").contains(#"<a href="/add-venue?name=x">"#))
            try await client.execute(uri: "/add-venue?name=Caf%C3%A9+%3Cb%3E&near=-33.87,151.21", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentSecurityPolicy]?.contains("script-src 'self'; connect-src 'self'") == true)
                #expect(response.headers[PageTemplates.permissionsPolicy]?.hasPrefix("microphone=()") == true)
                let html = String(buffer: response.body)
                #expect(html.contains("<title>Add a venue · HearClear</title>"))
                #expect(html.contains(#"<input id="name" name="name" value="Café &lt;b&gt;" required maxlength="200""#), "\(html)")
                #expect(html.contains(#"<input id="place" name="place" value="-33.87,151.21""#))
                #expect(html.contains(#"<option value="restaurant">restaurant</option>"#) && html.contains(#"data-radius="200""#))
                #expect(html.contains(#"<script type="module" src="/public/add-venue.js"></script>"#))
            }
            #expect(try await client.execute(uri: "/add-venue", method: .post).status == .methodNotAllowed)
        }
    }

    /// Was: twenty venues listed and nothing more, when more matched: a person looking for one bar
    /// among a city's hundred took the twenty for all there were.
    @Test func aSearchThatFindsMoreThanItShowsSaysSo() async throws {
        try await withApp { client, _ in
            let token = try await client.registerDevice()
            for index in 1...20 { _ = try await client.putVenue("bar-\(index)", token: token, name: "Bar \(index)") }
            let all = try await page(client, "/venues?q=bar")
            #expect(all.components(separatedBy: #"<a href="/venues/bar-"#).count == 21 && !all.contains("More venues match"), "\(all)")
            _ = try await client.putVenue("bar-21", token: token, name: "Bar 21")
            let more = try await page(client, "/venues?q=bar")
            #expect(more.components(separatedBy: #"<a href="/venues/bar-"#).count == 21, "\(more)")
            #expect(more.contains("More venues match than these 20: add a word of the name, or a place nearby."), "\(more)")
        }
    }

    /// Was: the public search listed venues near a place by distance and overall level only, while
    /// what a person choosing where to meet asks — where can we talk on Friday at 20:00 — was
    /// answered by `hearclear quiet` and the API alone, not on a phone.
    @Test(arguments: StoreKind.allCases) func aPlaceAndAnHourRankTheVenuesByTheVoiceTheyNeed(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            for (id, latitude, sil) in [("loud", 0.001, 60.0), ("calm", 0.005, 45.0), ("calmer", 0.01, 45.0)] {
                _ = try await client.putVenue(id, token: token, timezone: "UTC", name: "Venue \(id)", latitude: latitude, longitude: 0)
                let checkIn = ConversationTests.withBands(makeCheckIn(venue: id, start: "2026-11-20T20:00:00Z", level: -50), sil: sil)
                #expect(try await client.execute(uri: "/api/v2/checkins", method: .post, headers: bearer(token), body: try json(CheckInV2(checkIn))).status == .created)
            }
            func order(_ html: String) -> [String] {
                html.components(separatedBy: #"<li><a href="/venues/"#).dropFirst().map { String($0.prefix { $0 != "\"" && $0 != "?" }) }
            }
            // Without an hour, nearest first, as before.
            let nearest = try await page(client, "/venues?near=0,0")
            #expect(order(nearest) == ["loud", "calm", "calmer"], "\(nearest)")
            let ranked = try await page(client, "/venues?near=0,0&day=friday&hour=20")
            #expect(order(ranked) == ["calm", "calmer", "loud"], "\(ranked)")
            #expect(ranked.contains("Easiest conversation on Fridays at 20:00"), "\(ranked)")
            #expect(ranked.contains("normal voice, 60.0 dB(A)") && ranked.contains("loud voice, 60.0 dB(A)"), "\(ranked)")
            #expect(ranked.contains(#"<option value="friday" selected>"#) && ranked.contains(#"<option value="20" selected>"#), "\(ranked)")
            let hearingLoss = try await page(client, "/venues?near=0,0&day=friday&hour=20&hearing_loss=true")
            #expect(order(hearingLoss) == ["calm", "calmer", "loud"] && hearingLoss.contains("raised voice, 60.0 dB(A)"), "\(hearingLoss)")
            #expect(hearingLoss.contains(#"<a href="/venues/calm?hearing_loss=true">"#))
            // Now: this hour on the clock of the venue nearest the place (UTC here), read before and after.
            let utc = try #require(TimeZone(identifier: "UTC"))
            let before = WeekdayHour(Date(), in: utc)
            let now = try await page(client, "/venues?near=0,0&day=now")
            let after = WeekdayHour(Date(), in: utc)
            #expect(
                [before, after].contains { now.contains("Easiest conversation now, \($0.weekday.rawValue.capitalized) at \(String(format: "%02d:00", $0.hour))") },
                "\(now)")
            #expect(now.contains(#"<option value="now" selected>"#) && now.contains(#"<option value="" selected>Any hour"#), "\(now)")
            // An hour nobody measured anywhere here: nothing to rank by, said on each venue.
            let night = try await page(client, "/venues?near=0,0&day=monday&hour=4")
            #expect(order(night) == ["loud", "calm", "calmer"] && night.contains("no data at that hour"), "\(night)")

            for (uri, problem) in [
                ("/venues?near=0,0&day=friday", "Choose a weekday and an hour, or neither."),
                ("/venues?near=0,0&hour=20", "Choose a weekday and an hour, or neither."),
                ("/venues?day=friday&hour=20", "A weekday and an hour rank the venues near a place: give the place too."),
                ("/venues?near=0,0&day=someday&hour=20", "Choose a weekday and an hour from the lists."),
                ("/venues?near=0,0&day=friday&hour=24", "Choose a weekday and an hour from the lists."),
                ("/venues?near=0,0&day=now&hour=20", "“Now” is this hour already: leave the hour at “Any hour”, or choose a weekday."),
                ("/venues?day=now", "A weekday and an hour rank the venues near a place: give the place too."),
            ] {
                let html = try await page(client, uri, status: .badRequest)
                #expect(html.contains(problem), "\(uri): \(html)")
            }
        }
    }

    /// Was: a venue's page led to another search and nowhere near: a person who finds it too loud
    /// asks where nearby they could talk.
    @Test func aVenuePageLeadsToTheVenuesNearIt() async throws {
        try await withApp { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("here", token: token, name: "Here", latitude: -33.8688, longitude: 151.2093)
            #expect(try await page(client, "/venues/here").contains(#"<a href="/venues?near=-33.8688,151.2093">Venues near this one</a>"#))
            #expect(try await page(client, "/venues/here?hearing_loss=true").contains(#"<a href="/venues?near=-33.8688,151.2093&amp;hearing_loss=true">Venues near this one</a>"#))
        }
    }

    /// Weekdays that read the same are said once, together; the others each in their own words.
    /// A weekday whose hours measured need these voices.
    static func row(_ weekday: Weekday, _ efforts: [Int: VocalEffort]) -> ConversationLoudness.WeekdayRow {
        .init(
            weekday: weekday,
            hours: (0..<24).map { hour in
                ConversationCell(cell: LoudnessCell(weekday: weekday, hour: hour, levelDB: efforts[hour] == nil ? nil : 70, label: nil, checkins: 1, samples: 60), effort: efforts[hour])
            })
    }

    /// Said only where the scale's quietest label reaches a level that takes more than a normal voice.
    @Test func theLabelNoteFollowsTheScale() {
        let calm = LabelScale(bands: [.init(label: "calm", maxDB: 55), .init(label: "busy", maxDB: nil)])
        #expect(PublicVenuePage.labelNote(scale: calm, listener: .typical, distance: "1 m") == nil)
        #expect(PublicVenuePage.labelNote(scale: LabelScale(bands: [.init(label: "any", maxDB: nil)]), listener: .typical, distance: "1 m") == nil)
        let raised = PublicVenuePage.labelNote(scale: LabelScale(bands: [.init(label: "calm", maxDB: 62), .init(label: "busy", maxDB: nil)]), listener: .typical, distance: "2 m")
        #expect(raised?.hasSuffix("At 62 dB(A), still “calm”, a listener 2 m away typically needs a raised voice.") == true, "\(raised ?? "nil")")
    }

    /// Was: a person at the door read a week of sentences and two grids to learn what a
    /// conversation takes now; the page says the hour it is at the venue first.
    @Test func thePageSaysWhatAConversationTakesNowAtTheVenue() {
        let row = Self.row
        var grid = Weekday.allCases.map { row($0, $0 == .friday ? [20: .loud] : [:]) }
        #expect(
            PublicVenuePage.rightNow(grid, at: WeekdayHour(weekday: .friday, hour: 20), distance: "1 m").hasPrefix(
                "Now, Friday 20:00 at the venue: expect a loud voice to be understood at 1 m (70.0 dB(A), "))
        #expect(
            PublicVenuePage.rightNow(grid, at: WeekdayHour(weekday: .monday, hour: 3), distance: "1 m")
                == "Now, Monday 03:00 at the venue: nobody has measured this hour, or hours like it, yet.")
        grid[4].hours[21] = grid[4].hours[20]
        grid[4].hours[21].estimated = true
        #expect(
            PublicVenuePage.rightNow(grid, at: WeekdayHour(weekday: .friday, hour: 21), distance: "1 m")
                == "Now, Friday 21:00 at the venue: nobody has measured this hour yet; similar hours suggest a loud voice.")
        grid[4].hours[20].effort = .notPossible
        #expect(PublicVenuePage.rightNow(grid, at: WeekdayHour(weekday: .friday, hour: 20), distance: "1 m").contains(": conversation is not possible (70.0 dB(A), "))
    }

    @Test func weekdaysThatReadTheSameAreSaidTogether() {
        let row = Self.row
        let loud: [Int: VocalEffort] = [20: .loud, 21: .veryLoud]
        let summary = PublicVenuePage.summary(
            [row(.monday, loud), row(.tuesday, loud), row(.wednesday, [:]), row(.friday, [18: .normal, 21: .notPossible]), row(.sunday, loud)], distance: "1 m")
        #expect(summary == [
            "On Mondays, Tuesdays and Sundays, expect to raise your voice at every hour measured: a loud voice at best, a very loud voice at the loudest.",
            "On Fridays, at normal voice you will be understood at 1 m before 21:00; after that, expect to raise your voice (not possible at 21:00).",
            "Nobody has measured on Wednesdays yet.",
        ])
    }

    /// Was: "expect to raise your voice at every hour measured; at the loudest, a very loud voice"
    /// where every hour measured needed a very loud voice: "at the loudest" told a reader that
    /// quieter hours needed less, and the quietest times listed below said otherwise.
    @Test func aWeekdayWhoseHoursAllNeedOneVoiceSaysThatVoice() {
        let row = Self.row
        let summary = PublicVenuePage.summary(
            Weekday.allCases.map { day in
                switch day {
                case .monday: row(day, [19: .veryLoud, 20: .veryLoud, 21: .veryLoud])
                case .friday: row(day, [22: .notPossible, 23: .notPossible])
                default: row(day, [20: .raised, 22: .notPossible])
                }
            }, distance: "1 m")
        #expect(summary == [
            "On Mondays, expect a very loud voice at every hour measured.",
            "On Tuesdays, Wednesdays, Thursdays, Saturdays and Sundays, expect to raise your voice at every hour measured: a raised voice at best, conversation not possible at the loudest.",
            "On Fridays, conversation is not possible at any hour measured.",
        ])
    }

    /// Was: a weekday nobody measured was left out of the sentences without a word, so a person
    /// planning a Sunday read six weekdays and could not tell whether Sunday was forgotten.
    @Test func weekdaysNobodyMeasuredAreSaidAndWhetherTheGridsEstimateThem() {
        func row(_ weekday: Weekday, measured: Bool, estimated: Bool = false) -> ConversationLoudness.WeekdayRow {
            .init(
                weekday: weekday,
                hours: (0..<24).map { hour in
                    var cell = ConversationCell(
                        cell: LoudnessCell(weekday: weekday, hour: hour, levelDB: measured || estimated ? 70 : nil, label: nil, checkins: measured ? 1 : 0, samples: 60),
                        effort: measured || estimated ? .raised : nil)
                    cell.estimated = estimated
                    return cell
                })
        }
        let week = Weekday.allCases
        let oneUnmeasured = PublicVenuePage.summary(week.map { row($0, measured: $0 != .sunday, estimated: $0 == .sunday) }, distance: "1 m")
        #expect(oneUnmeasured.last == "Nobody has measured on Sundays yet; the grids below estimate its hours (~).", "\(oneUnmeasured)")
        let fridaysOnly = PublicVenuePage.summary(week.map { row($0, measured: $0 == .friday, estimated: $0 == .monday) }, distance: "1 m")
        #expect(fridaysOnly.last == "Nobody has measured on the other 6 weekdays yet; the grids below estimate some of their hours (~).", "\(fridaysOnly)")
        let unestimated = PublicVenuePage.summary(week.map { row($0, measured: $0 != .saturday && $0 != .sunday) }, distance: "1 m")
        #expect(unestimated.last == "Nobody has measured on Saturdays and Sundays yet.", "\(unestimated)")
        let everyDay = PublicVenuePage.summary(week.map { row($0, measured: true) }, distance: "1 m")
        #expect(everyDay.count == 1 && !everyDay[0].contains("Nobody"))
    }
}
