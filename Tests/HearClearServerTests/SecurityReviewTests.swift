import Foundation
import HearClearCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestCluster
import Testing

@testable import HearClearServer

/// The findings of the security review and of a careful user (issue 25), each reproduced through
/// the router on both stores: each of these failed on the code before its fix.
@Suite struct SecurityReviewTests {
    /// The ids of the venues `GET /api/v1/venues?q=` finds, in the order it lists them.
    func venuesFound(_ client: any TestClientProtocol, q: String) async throws -> [String] {
        try await client.execute(uri: "/api/v1/venues?q=\(q)", method: .get) { try decode(VenueList.self, $0).venues.map(\.id) }
    }

    @Test(arguments: StoreKind.allCases) func anEmptyOrSemicolonContentTypeIsA415NotACrash(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            for value in ["", ";", " ; ", ";charset=utf-8", ";;;"] {
                let headers: HTTPFields = [.contentType: value]
                let response = try await client.execute(uri: "/api/v1/devices", method: .post, headers: headers, body: ByteBuffer(string: "{}"))
                #expect(response.status == .unsupportedMediaType, "Content-Type \"\(value)\"")
                #expect(try errorMessage(response).contains("application/json"))
            }
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            #expect(try await database.count("device") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func aPlusInAQueryIsASpace(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("bloomsbury", token: token, name: "Bloomsbury Cafe")
            _ = try await client.putVenue("other", token: token, name: "Bloomsbury+Annex")
            // As a browser's form sends it, and as a program percent-encodes it: the same answer.
            for q in ["Bloomsbury+Cafe", "Bloomsbury%20Cafe", "bloomsbury+cafe"] {
                let found = try await venuesFound(client, q: q)
                #expect(found == ["bloomsbury"], "q=\(q)")
                let page = try await client.execute(uri: "/venues?q=\(q)", method: .get) { String(buffer: $0.body) }
                #expect(page.contains("href=\"/venues/bloomsbury\"") && !page.contains("href=\"/venues/other\""), "page for q=\(q)")
            }
            // A plus meant as a plus is percent-encoded, as browsers do.
            let plus = try await venuesFound(client, q: "Bloomsbury%2BAnnex")
            #expect(plus == ["other"])
            let twice = try await client.execute(uri: "/api/v1/venues?q=a&q=b", method: .get)
            #expect(twice.status == .badRequest)
            #expect(try errorMessage(twice).contains("\"q\" is given more than once"))
        }
    }

    @Test(arguments: StoreKind.allCases) func searchFoldsCaseBeyondASCIIAndRefusesControlCharacters(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("eclair", token: token, name: "Café Éclair")
            _ = try await client.putVenue("strasse", token: token, name: "Bar Ödön")
            for (q, expected) in [("CAF%C3%89", ["eclair"]), ("%C3%A9CLAIR", ["eclair"]), ("%C3%96D%C3%96N", ["strasse"]), ("caf%C3%A9", ["eclair"])] {
                let found = try await venuesFound(client, q: q)
                #expect(found == expected, "q=\(q)")
            }
            // A NUL ended the text where the database read it, and every venue matched.
            for q in ["%00", "a%00b", "%E2%80%AE"] {
                let response = try await client.execute(uri: "/api/v1/venues?q=\(q)", method: .get)
                #expect(response.status == .badRequest, "q=\(q)")
                let page = try await client.execute(uri: "/venues?q=\(q)", method: .get)
                #expect(page.status == .badRequest && String(buffer: page.body).contains("control or invisible characters"), "page q=\(q)")
            }
        }
    }

    /// Was: "cafe muller" found no "Café Müller", nor "cafe" any café written with its accent: a
    /// person types a name as their keyboard allows, and the venue was named by someone else's.
    @Test(arguments: StoreKind.allCases) func searchIgnoresAccents(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("muller", token: token, name: "Café Müller")
            _ = try await client.putVenue("plain", token: token, name: "Cafe Muller Annex")
            _ = try await client.putVenue("senor", token: token, name: "El Señor")
            // A phone's keyboard types a typographer's apostrophe (’) where a name was given a plain one, and the other way round.
            _ = try await client.putVenue("joes", token: token, name: "Joe's Bar")
            _ = try await client.putVenue("annes", token: token, name: "Anne’s Kitchen")
            for (q, expected) in [
                ("cafe+muller", ["muller", "plain"]), ("CAF%C3%89+M%C3%9CLLER", ["muller", "plain"]), ("senor", ["senor"]), ("se%C3%B1or", ["senor"]),
                ("annex", ["plain"]), ("joe%E2%80%99s", ["joes"]), ("anne's", ["annes"]),
            ] {
                let found = try await venuesFound(client, q: q).sorted()
                #expect(found == expected, "q=\(q)")
                let page = try await client.execute(uri: "/venues?q=\(q)", method: .get) { String(buffer: $0.body) }
                #expect(expected.allSatisfy { page.contains("href=\"/venues/\($0)\"") }, "page for q=\(q)")
            }
            // A venue renamed is found by its new name's letters, not its old one's.
            _ = try await client.putVenue("senor", token: token, name: "Zoë's")
            let renamed = try await venuesFound(client, q: "zoe")
            #expect(renamed == ["senor"])
            let old = try await venuesFound(client, q: "senor")
            #expect(old.isEmpty)
        }
    }

    /// Was: "crown and anchor" found no "The Crown & Anchor", nor "rock & roll" any "Rock and Roll
    /// Diner": a name is said with "and" and written with "&", or the other way round, and a search
    /// that wants every word found none.
    @Test(arguments: StoreKind.allCases) func searchReadsAndAsAnAmpersand(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("crown", token: token, name: "The Crown & Anchor")
            _ = try await client.putVenue("rock", token: token, name: "Rock and Roll Diner")
            _ = try await client.putVenue("fish", token: token, name: "Fish+Chips")
            for (q, expected) in [
                ("crown+and+anchor", ["crown"]), ("crown+%26+anchor", ["crown"]), ("rock+%26+roll", ["rock"]), ("ROCK+AND+ROLL", ["rock"]),
                ("fish+and+chips", ["fish"]), ("fish+%2B+chips", ["fish"]),
                // Alone, "and" is what the person looks for.
                ("and", ["rock"]),
            ] {
                let found = try await venuesFound(client, q: q).sorted()
                #expect(found == expected, "q=\(q)")
            }
        }
    }

    /// Was: "Bar" before "apple bar" and "Éclair Bar" after "zoo bar" on SQLite (its bytes' order), and
    /// another order on PostgreSQL (the database's locale): the first 20 a search lists differed
    /// between the stores, and neither was the alphabet's.
    @Test(arguments: StoreKind.allCases) func aSearchListsNamesInTheAlphabetsOrderWhateverTheirCaseAndAccents(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            for (id, name) in [("zoo", "zoo bar"), ("eclair", "Éclair Bar"), ("apple", "apple bar"), ("bar", "Bar"), ("dock", "Dock Bar")] {
                _ = try await client.putVenue(id, token: token, name: name)
            }
            let found = try await venuesFound(client, q: "bar")
            #expect(found == ["apple", "bar", "dock", "eclair", "zoo"])
        }
    }

    @Test(arguments: StoreKind.allCases) func intervalsAreBoundedAndCountedNotOnlyTimed(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            // The review's forgery: 600 000 intervals of 0.1 ms, 3 KB gzipped; and 1e-9. Then
            // intervals of a part of a second, each of which would weigh as a second (a check-in
            // at 0.1 s ten times its share of the venue's level), and a fraction of seconds.
            for interval in [0.0001, 1e-9, 0.05, 0.1, 0.5, 1.5, 61] {
                for version in ["v1", "v2"] {
                    var checkIn = makeCheckIn(venue: "v1", start: "2026-11-16T20:00:00Z", seconds: 20)
                    checkIn.intervalS = interval
                    let body = version == "v1" ? try json(checkIn) : try json(CheckInV2(checkIn))
                    let response = try await client.execute(uri: "/api/\(version)/checkins", method: .post, headers: bearer(token), body: body)
                    #expect(response.status == .unprocessableContent, "\(version), interval \(interval)")
                    #expect(try errorMessage(response).contains("interval_s must be a whole number of seconds from 1 to 60"), "\(version), interval \(interval)")
                }
            }
            // 43 201 intervals of 1 s are more than 12 hours.
            let count = 43_201
            let body = #"{"id": "\#(UUID().wireString)", "venue_id": "v1", "started_at": "2026-11-16T20:00:00Z", "interval_s": 1, "levels": {"avg": [\#(Array(repeating: "-400", count: count).joined(separator: ","))], "peak": [\#(Array(repeating: "-300", count: count).joined(separator: ","))]}}"#
            let tooMany = try await client.execute(uri: "/api/v2/checkins", method: .post, headers: bearer(token), body: ByteBuffer(string: body))
            #expect(tooMany.status == .unprocessableContent)
            #expect(try errorMessage(tooMany).contains("at most 12 hours"))
            #expect(try await database.count("checkin") == 0)
            #expect(try await database.storedSamples().count == 0)
            var tens = makeCheckIn(venue: "v1", start: "2026-11-16T20:00:00Z", seconds: 60)
            tens.intervalS = 10
            tens.samples = tens.samples.enumerated().map { index, sample in Sample(t: Double(index) * 10, avg: sample.avg, peak: sample.peak) }
            #expect(try await client.postCheckIn(tens, token: token).status == .created)
        }
    }

    @Test(arguments: StoreKind.allCases) func aStartBefore2000IsRefused(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            for start in ["0001-01-01T00:00:00Z", "1900-01-01T20:00:00Z", "1970-01-01T20:00:00Z", "1999-12-31T23:59:59Z"] {
                let response = try await client.postCheckIn(makeCheckIn(venue: "v1", start: start), token: token)
                #expect(response.status == .unprocessableContent, "\(start)")
                #expect(try errorMessage(response).contains("before 2000"))
            }
            #expect(try await database.count("checkin") == 0)
            #expect(try await client.postCheckIn(makeCheckIn(venue: "v1", start: "2000-01-01T00:00:00Z"), token: token).status == .created)
        }
    }

    @Test(arguments: StoreKind.allCases) func namesAreCountedInScalarsAndMayNotHideText(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            // One character of 1 + 300 scalars: the review stored 1.9 M of them.
            let marks = "Z" + String(repeating: "\u{0301}", count: 300)
            let hidden: [(String, String)] = [
                ("combining marks", marks), ("a right-to-left override", "Bar \u{202E}kcip"), ("a zero-width space", "Bar\u{200B}One"),
                ("a bidi isolate", "Bar \u{2066}x\u{2069}"), ("a line separator", "Bar\u{2028}Two"), ("a NUL", "Bar\u{0}"),
            ]
            for (what, name) in hidden {
                let venue = try await client.putVenue("v1", token: token, name: name)
                #expect(venue.status == .unprocessableContent, "name with \(what)")
                let device = try await client.execute(
                    uri: "/api/v1/devices", method: .post, headers: jsonHeaders, body: try json(DeviceRegistration(model: name, platform: "linux")))
                #expect(device.status == .unprocessableContent, "model with \(what)")
            }
            #expect(try await database.count("venue") == 0)
            #expect(try await database.count("device") == 1)
            // 200 scalars are fine, accents and all; 201 are not.
            let accented = String(repeating: "é", count: 200)
            #expect(try await client.putVenue("v1", token: token, name: accented).status == .created)
            let decomposed = String(repeating: "e\u{0301}", count: 101)
            #expect(try await client.putVenue("v2", token: token, name: decomposed).status == .unprocessableContent)
        }
    }

    @Test(arguments: StoreKind.allCases) func aReUploadWithOtherClassesIsAConflict(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            var checkIn = CheckInV2Tests.detailedCheckIn(venue: "v1", seconds: 60)
            checkIn.samples = checkIn.samples.map { sample in
                var sample = sample
                sample.classes = SoundClasses(speech: 0.8, music: 0.1)
                return sample
            }
            checkIn.events = [LoudEvent(t: 10, peak: -3, durationS: 2, sound: .speech)]
            func post(_ checkIn: CheckIn) async throws -> HTTPResponse.Status {
                try await client.execute(uri: "/api/v2/checkins", method: .post, headers: bearer(token), body: try json(CheckInV2(checkIn))).status
            }
            #expect(try await post(checkIn) == .created)
            #expect(try await post(checkIn) == .ok)
            var otherClasses = checkIn
            otherClasses.samples[5].classes = SoundClasses(speech: 0.1, music: 0.9)
            #expect(try await post(otherClasses) == .conflict)
            var otherEvent = checkIn
            otherEvent.events[0].sound = .music
            #expect(try await post(otherEvent) == .conflict)
        }
    }

    @Test func staticFilesAreNotSniffedAndANulInTheirPathIsRefused() async throws {
        try await withApp { client, _ in
            let file = try await client.execute(uri: "/public/favicon.svg", method: .get)
            #expect(file.status == .ok)
            #expect(file.headers[.init("X-Content-Type-Options")!] == "nosniff")
            for path in ["/public/favicon.svg%00.html", "/public/favicon.svg%0a", "/public/%ZZ"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .notFound, "\(path)")
                #expect(response.headers[.contentType] != "text/html", "\(path)")
                #expect(response.headers[.init("X-Content-Type-Options")!] == "nosniff")
            }
            let answer = try await client.execute(uri: "/api/v1/scale", method: .get)
            #expect(answer.headers[.init("X-Content-Type-Options")!] == "nosniff")
        }
    }

    @Test(arguments: StoreKind.allCases) func errorsSayWhatWasWrongWithoutSwiftInternals(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            func body(id: String = UUID().wireString, avg: String = "-400", extra: String = "") -> String {
                #"{"id": "\#(id)", "venue_id": "v1", "started_at": "2026-11-16T20:00:00Z", "levels": {"avg": [\#(avg)], "peak": [-300]}\#(extra)}"#
            }
            let cases: [(String, String, HTTPResponse.Status, String)] = [
                ("a fraction where tenths are whole", body(avg: "-400.5"), .unprocessableContent, "a number does not fit its field"),
                ("a number too large for its field", body(avg: "1e30"), .unprocessableContent, "a number does not fit its field"),
                ("an unknown weighting", body(extra: #", "weighting": "Q""#), .unprocessableContent, #"weighting: must be one of "A", "Z", not "Q""#),
                ("an unknown event class", body(extra: #", "events": [{"t": 0, "peak": -1, "duration_s": 1, "class": "loud"}]"#), .unprocessableContent,
                 #"events[0].class: must be one of "speech", "music", "other", not "loud""#),
                ("an id that is no UUID", body(id: "nope"), .unprocessableContent, "id: expected a UUID the client chose"),
                ("JSON cut short", "[1, 2", .badRequest, "malformed JSON"),
                // Was "body: expected an array", of an array.
                ("an array for the check-in", "[]", .badRequest, "body: expected an object"),
            ]
            for (what, text, status, message) in cases {
                let response = try await client.execute(uri: "/api/v2/checkins", method: .post, headers: bearer(token), body: ByteBuffer(string: text))
                #expect(response.status == status, "\(what)")
                let said = try errorMessage(response)
                #expect(said.contains(message), "\(what): \(said)")
                #expect(!said.contains("Cannot initialize") && !said.contains("Attempted to decode"), "\(what): \(said)")
            }
            #expect(try await database.count("checkin") == 0)
        }
    }

    @Test func aBrowserGetsAPageForAPathThatIsNotThereAndAProgramGetsJSON() async throws {
        try await withApp { client, _ in
            let html: HTTPFields = [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"]
            for path in ["/nothing", "/venue", "/public/missing.css"] {
                let page = try await client.execute(uri: path, method: .get, headers: html)
                #expect(page.status == .notFound, "\(path)")
                #expect(page.headers[.contentType]?.hasPrefix("text/html") == true, "\(path)")
                #expect(String(buffer: page.body).contains("There is no page at \(path)"), "\(path)")
            }
            let program = try await client.execute(uri: "/nothing", method: .get)
            #expect(program.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(try errorMessage(program) == "no such resource: /nothing")
            let api = try await client.execute(uri: "/api/v1/nothing", method: .get, headers: html)
            #expect(api.headers[.contentType]?.hasPrefix("application/json") == true)
            let home = try await client.execute(uri: "/", method: .get, headers: html)
            #expect(home.status == .seeOther && home.headers[.location] == "/venues")
        }
    }
}
