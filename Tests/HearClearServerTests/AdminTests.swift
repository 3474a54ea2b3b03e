import Foundation
import HearClearCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestCluster
import Testing

@testable import HearClearServer

/// The admin pages through the router: access, every page, escaping, and the actions changing the API's answers.
@Suite struct AdminTests {
    static let password = "correct horse battery"
    static let authorization = "Basic " + Data("admin:\(password)".utf8).base64EncodedString()
    static let pages = ["/admin", "/admin/venues", "/admin/venues/v1", "/admin/devices", "/admin/calibration", "/admin/scale"]

    func withAdmin(_ store: StoreKind, _ test: @Sendable (any TestClientProtocol, TemporaryDatabase) async throws -> Void) async throws {
        let database = try await TemporaryDatabase(store)
        let settings = ServerSettings(adminPassword: Self.password)
        let app = Application(router: try await buildRouter(store: database.opened, settings: settings, logger: quietLogger), logger: quietLogger)
        try await app.test(.router) { client in try await test(client, database) }
    }

    /// A venue with six quiet check-ins on Mondays at 20:00 and a loud one, an outlier; returns the
    /// device token and the check-in ids, quiet ones first.
    func populate(_ client: some TestClientProtocol, venueName: String = "The Quiet Table") async throws -> (token: String, checkIns: [UUID]) {
        let token = try await client.registerDevice(model: "Test Mic")
        _ = try await client.putVenue("v1", token: token, timezone: "UTC", name: venueName)
        var ids: [UUID] = []
        for week in 0..<7 {
            let start = mondayEvening(weeksBefore: week)
            let checkIn = makeCheckIn(venue: "v1", start: start, level: week == 6 ? -30 : -50)
            ids.append(checkIn.id)
            #expect(try await client.postCheckIn(checkIn, token: token).status == .created)
        }
        return (token, ids)
    }

    func get(_ client: some TestClientProtocol, _ path: String, cookie: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: Self.authorization]
        if let cookie { headers[.cookie] = cookie }
        return try await client.execute(uri: path, method: .get, headers: headers)
    }

    /// Opens a page as a browser would, and returns the session cookie and the CSRF token of its forms.
    func session(_ client: some TestClientProtocol, page: String) async throws -> (cookie: String, csrf: String) {
        let response = try await get(client, page)
        let cookie = try #require(response.headers[.setCookie]?.split(separator: ";").first.map(String.init))
        let html = String(buffer: response.body)
        let marker = #"name="csrf" value=""#
        let start = try #require(html.range(of: marker)).upperBound
        return (cookie, String(html[start...].prefix { $0 != "\"" }))
    }

    func post(_ client: some TestClientProtocol, _ path: String, form: String, cookie: String?) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: Self.authorization, .contentType: "application/x-www-form-urlencoded"]
        if let cookie { headers[.cookie] = cookie }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: form))
    }

    func overall(_ client: some TestClientProtocol) async throws -> LoudnessCell? {
        try await client.execute(uri: "/api/v1/venues/v1/loudness", method: .get) { response throws in
            response.status == .ok ? try decode(Loudness.self, response).overall : nil
        }
    }

    @Test(arguments: StoreKind.allCases) func everyPageNeedsThePasswordAndSaysSoToBrowsers(store: StoreKind) async throws {
        try await withAdmin(store) { client, _ throws in
            _ = try await populate(client)
            for page in Self.pages {
                try await client.execute(uri: page, method: .get) { response throws in
                    #expect(response.status == .unauthorized, "\(page)")
                    #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Basic realm=\"HearClear admin\"") == true, "\(page)")
                }
                let wrong = "Basic " + Data("admin:guess".utf8).base64EncodedString()
                try await client.execute(uri: page, method: .get, headers: [.authorization: wrong]) { response throws in
                    #expect(response.status == .unauthorized, "\(page)")
                }
                let page = try await get(client, page)
                #expect(page.status == .ok)
                #expect(page.headers[.contentType] == "text/html; charset=utf-8")
                #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func withoutAPasswordTheAdminPagesAreOff(store: StoreKind) async throws {
        let database = try await TemporaryDatabase(store)
        let app = Application(router: try await buildRouter(store: database.opened, settings: ServerSettings(), logger: quietLogger), logger: quietLogger)
        try await app.test(.router) { client in
            try await client.execute(uri: "/admin", method: .get, headers: [.authorization: Self.authorization]) { response throws in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func unknownIdsAre404(store: StoreKind) async throws {
        try await withAdmin(store) { client, _ throws in
            let missing = try await get(client, "/admin/venues/nope")
            #expect(missing.status == .notFound && missing.headers[.contentType] == "text/html; charset=utf-8")
            #expect(String(buffer: missing.body).contains("venue nope not found"))
            #expect(try await get(client, "/admin/checkins/\(UUID().wireString)").status == .notFound)
            #expect(try await get(client, "/admin/checkins/not-a-uuid").status == .notFound)
        }
    }

    @Test(arguments: StoreKind.allCases) func pagesShowTheData(store: StoreKind) async throws {
        try await withAdmin(store) { client, _ throws in
            let (_, ids) = try await populate(client)
            let dashboard = String(buffer: try await get(client, "/admin").body)
            #expect(dashboard.contains("Latest check-ins left out"))
            #expect(dashboard.contains(#"<tr class="status-outlier">"#))
            #expect(dashboard.contains(#"<span class="number">7</span> check-ins"#))
            #expect(dashboard.contains(#"<svg class="chart daily""#))
            let venue = String(buffer: try await get(client, "/admin/venues/v1").body)
            #expect(venue.components(separatedBy: "<rect class=\"cell").count - 1 == 168)
            #expect(venue.components(separatedBy: "<rect class=\"cell empty\"").count - 1 == 167)
            #expect(venue.contains("Monday 20:00: 60.0 dB(A), quiet, 6 check-ins"))
            #expect(venue.contains(#"<span class="number">1</span> outlier</div>"#))
            let checkIn = String(buffer: try await get(client, "/admin/checkins/\(ids[0].wireString)").body)
            #expect(checkIn.contains(#"<svg class="chart session""#))
            #expect(checkIn.components(separatedBy: "<tr><td>").count - 1 >= 60)
            let venues = String(buffer: try await get(client, "/admin/venues?q=quiet").body)
            #expect(venues.contains("The Quiet Table"))
            #expect(!String(buffer: try await get(client, "/admin/venues?q=nothing-like-it").body).contains("The Quiet Table"))
            #expect(String(buffer: try await get(client, "/admin/venues?q=table+quiet").body).contains("The Quiet Table"))
            #expect(!String(buffer: try await get(client, "/admin/venues?q=quiet+chair").body).contains("The Quiet Table"))
            #expect(String(buffer: try await get(client, "/admin/devices").body).contains("Test Mic"))
            #expect(String(buffer: try await get(client, "/admin/scale").body).contains("very loud"))
        }
    }

    @Test(arguments: StoreKind.allCases) func theLoudestVenuesOnFridayNightsComeFirst(store: StoreKind) async throws {
        try await withAdmin(store) { client, _ throws in
            let token = try await client.registerDevice()
            // Friday 2026-11-20, 21:00 UTC: a quiet café, a loud bar; the café is also loud on Monday.
            for (venue, name) in [("cafe", "Quiet Cafe"), ("bar", "Loud Bar")] {
                _ = try await client.putVenue(venue, token: token, timezone: "UTC", name: name)
            }
            _ = try await client.postCheckIn(makeCheckIn(venue: "cafe", start: "2026-11-20T21:00:00Z", level: -50), token: token)
            _ = try await client.postCheckIn(makeCheckIn(venue: "bar", start: "2026-11-20T21:00:00Z", level: -28), token: token)
            _ = try await client.postCheckIn(makeCheckIn(venue: "cafe", start: "2026-11-16T21:00:00Z", level: -20), token: token)
            let friday = String(buffer: try await get(client, "/admin/venues?day=friday&from=20&to=23").body)
            let bar = try #require(friday.range(of: "Loud Bar")), cafe = try #require(friday.range(of: "Quiet Cafe"))
            #expect(bar.lowerBound < cafe.lowerBound)
            #expect(friday.contains("82.0 dB(A) <span class=\"label\">very loud</span>"))
            #expect(friday.contains("2 venues with data on Friday, 20:00 to 24:00 local time"))
            let monday = String(buffer: try await get(client, "/admin/venues?day=monday&from=20&to=23").body)
            #expect(monday.contains("Quiet Cafe") && !monday.contains("Loud Bar"))
            #expect(try await get(client, "/admin/venues?day=someday").status == .badRequest)
            #expect(try await get(client, "/admin/venues?day=any&from=22&to=3").status == .badRequest)
        }
    }

    @Test(arguments: StoreKind.allCases) func aCheckInPageSaysWhyItCountsOrNot(store: StoreKind) async throws {
        try await withAdmin(store) { client, _ throws in
            let (token, ids) = try await populate(client)
            let outlier = String(buffer: try await get(client, "/admin/checkins/\(ids[6].wireString)").body)
            #expect(outlier.contains("Outlier: 80.0 dB(A) is more than 6.0 dB from the median 60.0 dB(A) of 6 other check-ins at the same weekday and hour."))
            let counted = String(buffer: try await get(client, "/admin/checkins/\(ids[0].wireString)").body)
            #expect(counted.contains("Counted: 60.0 dB(A) is within 6.0 dB of the median 60.0 dB(A) of 6 other check-ins at the same weekday and hour."))
            let short = makeCheckIn(venue: "v1", start: "2026-11-17T10:00:00Z", seconds: 9)
            _ = try await client.postCheckIn(short, token: token)
            let shortPage = String(buffer: try await get(client, "/admin/checkins/\(short.id.wireString)").body)
            #expect(shortPage.contains("Too short: 9 samples kept"))
            // Was: the status as the API spells it, "too_short", on the page and in the venue's table.
            #expect(shortPage.contains(#"<span class="number status">too short</span>"#) && !shortPage.contains(">too_short<"), "\(shortPage)")
            let venue = String(buffer: try await get(client, "/admin/venues/v1").body)
            #expect(venue.contains(#"<tr class="status-too_short">"#) && venue.contains(#"<span class="status">too short</span>"#), "\(venue)")
            var spiky = makeCheckIn(venue: "v1", start: "2026-11-18T10:00:00Z")
            spiky.samples[10].avg = -5
            spiky.samples[10].peak = -1
            _ = try await client.postCheckIn(spiky, token: token)
            let page = String(buffer: try await get(client, "/admin/checkins/\(spiky.id.wireString)").body)
            #expect(page.contains("1 spike sample dropped"))
            #expect(page.contains("no outlier decision is made"))
            // Was: every dropped sample called a spike, a muted microphone's silence too.
            var muted = makeCheckIn(venue: "v1", start: "2026-11-19T10:00:00Z")
            for index in 40..<60 { muted.samples[index] = Sample(t: Double(index), avg: -160, peak: -160) }
            muted.samples[10].avg = -5
            muted.samples[10].peak = -1
            _ = try await client.postCheckIn(muted, token: token)
            let mutedPage = String(buffer: try await get(client, "/admin/checkins/\(muted.id.wireString)").body)
            #expect(mutedPage.contains("20 silent samples dropped: below -120 dBFS, no sound at all (a microphone muted, or giving zeros). 1 spike sample dropped: each stood"), "\(mutedPage)")
        }
    }

    @Test(arguments: StoreKind.allCases) func whatClientsSentIsEscaped(store: StoreKind) async throws {
        try await withAdmin(store) { client, _ throws in
            _ = try await populate(client, venueName: "<script>alert(1)</script>")
            for page in ["/admin", "/admin/venues", "/admin/venues/v1"] {
                let html = String(buffer: try await get(client, page).body)
                #expect(!html.contains("<script>"), "\(page)")
                #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(page)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func aPostWithoutAValidCSRFTokenIsRefused(store: StoreKind) async throws {
        try await withAdmin(store) { client, database throws in
            let (_, ids) = try await populate(client)
            let page = "/admin/checkins/\(ids[0].wireString)"
            let (cookie, csrf) = try await session(client, page: page)
            #expect(try await post(client, page + "/outlier", form: "marked=1", cookie: cookie).status == .forbidden)
            #expect(try await post(client, page + "/outlier", form: "marked=1&csrf=\(String(repeating: "0", count: 64))", cookie: cookie).status == .forbidden)
            // A token from another session does not pass either.
            #expect(try await post(client, page + "/outlier", form: "marked=1&csrf=\(csrf)", cookie: nil).status == .forbidden)
            #expect(try await database.status(of: ids[0]) == .accepted)
            let accepted = try await post(client, page + "/outlier", form: "marked=1&csrf=\(csrf)", cookie: cookie)
            #expect(accepted.status == .seeOther)
            #expect(accepted.headers[.location] == page)
        }
    }

    @Test(arguments: StoreKind.allCases) func aManualOutlierMarkChangesTheLoudnessAndClearingItUndoesIt(store: StoreKind) async throws {
        try await withAdmin(store) { client, database throws in
            let (_, ids) = try await populate(client)
            let before = try #require(try await overall(client))
            #expect(before.checkins == 6)
            let page = "/admin/checkins/\(ids[0].wireString)"
            let (cookie, csrf) = try await session(client, page: page)
            _ = try await post(client, page + "/outlier", form: "marked=1&csrf=\(csrf)", cookie: cookie)
            #expect(try await database.status(of: ids[0]) == .outlier)
            #expect(try await overall(client)?.checkins == 5)
            #expect(String(buffer: try await get(client, page, cookie: cookie).body).contains("Clear the outlier mark"))
            _ = try await post(client, page + "/outlier", form: "marked=0&csrf=\(csrf)", cookie: cookie)
            #expect(try await database.status(of: ids[0]) == .accepted)
            #expect(try await overall(client) == before)
            #expect(try await database.repository.verify() == [])
        }
    }

    @Test(arguments: StoreKind.allCases) func aBanTakesTheDevicesCheckInsOutAndItsWritesAnswer403(store: StoreKind) async throws {
        try await withAdmin(store) { client, database throws in
            let (token, _) = try await populate(client)
            let device: String = try #require(try await database.string("SELECT id FROM device"))
            let (cookie, csrf) = try await session(client, page: "/admin/devices")
            let banned = try await post(client, "/admin/devices/\(device)/ban", form: "banned=1&csrf=\(csrf)", cookie: cookie)
            #expect(banned.status == .seeOther)
            #expect(try await overall(client) == nil)  // no usable check-in left: 404
            // The venue page counts what the answers count: a banned device's check-ins are not usable.
            #expect(String(buffer: try await get(client, "/admin/venues/v1").body).contains(#"<span class="number">0</span> usable"#))
            #expect(try await client.putVenue("v2", token: token).status == .forbidden)
            #expect(try await database.repository.verify() == [])
            _ = try await post(client, "/admin/devices/\(device)/ban", form: "banned=0&csrf=\(csrf)", cookie: cookie)
            #expect(try await overall(client)?.checkins == 6)
            #expect(String(buffer: try await get(client, "/admin/venues/v1").body).contains(#"<span class="number">6</span> usable"#))
        }
    }

    @Test(arguments: StoreKind.allCases) func aModelsCalibrationRecalibratesItsCheckInsAndRelabels(store: StoreKind) async throws {
        try await withAdmin(store) { client, database throws in
            let token = try await client.registerDevice(model: "Cheap Mic")
            _ = try await client.putVenue("v1", token: token)
            // −45 dBFS with the default 110: 65 dB(A), quiet. With Cheap Mic at 122: 77, loud.
            #expect(try await client.postCheckIn(makeCheckIn(venue: "v1", start: "2026-11-16T20:00:00Z", level: -45, calibration: nil), token: token).status == .created)
            #expect(try await overall(client)?.label == "quiet")
            let (cookie, csrf) = try await session(client, page: "/admin/calibration")
            let saved = try await post(client, "/admin/calibration", form: "model=Cheap+Mic&offset=122&csrf=\(csrf)", cookie: cookie)
            #expect(saved.status == .seeOther)
            let after = try #require(try await overall(client))
            #expect(after.levelDB == 77 && after.label == "loud")
            #expect(String(buffer: try await get(client, "/admin/calibration").body).contains("Cheap Mic"))
            #expect(try await database.repository.verify() == [])
            _ = try await post(client, "/admin/calibration", form: "model=Cheap+Mic&offset=&csrf=\(csrf)", cookie: cookie)
            #expect(try await overall(client)?.levelDB == 65)
            #expect(try await post(client, "/admin/calibration", form: "model=Cheap+Mic&offset=900&csrf=\(csrf)", cookie: cookie).status == .unprocessableContent)
        }
    }

    /// The calibrations devices measured themselves, per model: each device once, with its latest;
    /// the median offered as the model's offset, which changes only when the operator saves it.
    @Test(arguments: StoreKind.allCases) func theCalibrationPageSaysWhatEachModelsDevicesMeasured(store: StoreKind) async throws {
        try await withAdmin(store) { client, database throws in
            var tokens: [String] = []
            for _ in 0..<3 { tokens.append(try await client.registerDevice(model: "Cheap Mic")) }
            let uncalibrated = try await client.registerDevice(model: "Other Mic")
            _ = try await client.putVenue("v1", token: tokens[0])
            // The first device's earlier 130 is replaced by its latest, 120; the others say 121 and
            // 125: the median of 120, 121 and 125 is 121, where one per check-in would have said 123.
            for (token, calibration, start) in [
                (tokens[0], 130.0, "2026-11-16T18:00:00Z"), (tokens[0], 120, "2026-11-16T19:00:00Z"), (tokens[1], 121, "2026-11-16T19:00:00Z"),
                (tokens[2], 125, "2026-11-16T19:00:00Z"), (uncalibrated, nil, "2026-11-16T19:00:00Z"),
            ] as [(String, Double?, String)] {
                #expect(try await client.postCheckIn(makeCheckIn(venue: "v1", start: start, calibration: calibration), token: token).status == .created)
            }
            let table = try await database.repository.calibrations()
            #expect(table.measured == [.init(model: "Cheap Mic", devices: 3, medianDB: 121, lowestDB: 120, highestDB: 125)])
            let html = String(buffer: try await get(client, "/admin/calibration").body)
            #expect(html.contains("<tr><td>Cheap Mic</td><td>3</td><td>121.0</td><td>120.0–125.0</td><td>none</td>"), "\(html)")
            #expect(html.contains(#"<input type="hidden" name="offset" value="121.0"><button type="submit">Set 121.0 dB</button>"#))
            #expect(!html.contains("<td>Other Mic</td>"))
            #expect(try await database.repository.calibrationOffset(model: "Cheap Mic") == nil)
            // Its button saves the median as the model's offset, like any other.
            let (cookie, csrf) = try await session(client, page: "/admin/calibration")
            #expect(try await post(client, "/admin/calibration", form: "csrf=\(csrf)&model=Cheap+Mic&offset=121.0", cookie: cookie).status == .seeOther)
            #expect(try await database.repository.calibrationOffset(model: "Cheap Mic") == 121)
            #expect(String(buffer: try await get(client, "/admin/calibration").body).contains("<td>120.0–125.0</td><td>121.0</td>"))
        }
    }

    /// Without an icon, every page load logged a 404 for /favicon.ico.
    @Test(arguments: StoreKind.allCases) func pagesHaveAnIconSoBrowsersAskForNothingMissing(store: StoreKind) async throws {
        try await withAdmin(store) { client, _ in
            #expect(String(buffer: try await get(client, "/admin").body).contains(#"<link rel="icon" href="/public/favicon.svg""#))
            try await client.execute(uri: "/public/favicon.svg", method: .get) { response throws in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("image/svg+xml") == true)
            }
            try await client.execute(uri: "/favicon.ico", method: .get) { response throws in
                #expect(response.status == .movedPermanently)
                #expect(response.headers[.location] == "/public/favicon.svg")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func theStylesheetIsServedWithCachingHeaders(store: StoreKind) async throws {
        try await withAdmin(store) { client, _ throws in
            try await client.execute(uri: "/public/admin.css", method: .get) { response throws in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl]?.contains("max-age=3600") == true)
                #expect(response.headers[.eTag] != nil)
            }
        }
    }

    @Test func comparisonOfSecretsIsRightWhateverTheLengths() {
        #expect(ConstantTime.equals(Data("secret".utf8), Data("secret".utf8)))
        #expect(!ConstantTime.equals(Data("secret".utf8), Data("secreT".utf8)))
        #expect(!ConstantTime.equals(Data("secret".utf8), Data("secret-longer".utf8)))
        #expect(!ConstantTime.equals(Data(), Data("x".utf8)))
        #expect(ConstantTime.equals(Data(), Data()))
    }
}
