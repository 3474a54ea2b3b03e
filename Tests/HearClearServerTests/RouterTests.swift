import Foundation
import GRDB
import HearClearCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestCluster
import Testing

@testable import HearClearServer

/// Every route of API v1 and every status it answers, through the router on a temporary database.
@Suite struct RouterTests {
    // MARK: Devices

    @Test(arguments: StoreKind.allCases) func registeringADeviceReturnsATokenThatIsStoredOnlyAsAHash(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let credentials = try await client.execute(
                uri: "/api/v1/devices", method: .post, headers: jsonHeaders,
                body: try json(DeviceRegistration(model: "ReSpeaker USB", platform: "raspberrypi"))
            ) { response throws in
                #expect(response.status == .created)
                return try decode(DeviceCredentials.self, response)
            }
            #expect(credentials.token.count >= 22)  // base64url of ≥ 128 bits
            #expect(try await database.string("SELECT id FROM device") == credentials.deviceID.wireString)
            #expect(try await database.int("SELECT COUNT(*) FROM device WHERE token_hash = \(database.blob(DeviceToken.hash(credentials.token)))") == 1)
            // No column holds the token itself.
            let columns = ["model", "platform"] + (database.kind == .sqlite ? ["CAST(token_hash AS TEXT)"] : ["encode(token_hash, 'escape')"])
            for column in columns {
                #expect(try await database.strings("SELECT \(column) FROM device").allSatisfy { !$0.contains(credentials.token) })
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func aBadRegistrationIsRefusedWithAReason(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            try await client.execute(uri: "/api/v1/devices", method: .post, headers: jsonHeaders, body: ByteBuffer(string: "{\"model\": ")) { response throws in
                #expect(response.status == .badRequest)
                #expect(try errorMessage(response).contains("malformed JSON"))
            }
            try await client.execute(uri: "/api/v1/devices", method: .post, headers: jsonHeaders, body: ByteBuffer(string: #"{"model": 3, "platform": "x"}"#)) { response throws in
                #expect(response.status == .badRequest)
                #expect(try errorMessage(response) == "model: expected a string")
            }
            try await client.execute(uri: "/api/v1/devices", method: .post, headers: [.contentType: "text/plain"], body: try json(DeviceRegistration(model: "m", platform: "p"))) { response throws in
                #expect(response.status == .unsupportedMediaType)
            }
            try await client.execute(uri: "/api/v1/devices", method: .post, headers: jsonHeaders, body: try json(DeviceRegistration(model: "bad\u{7}model", platform: "p"))) { response throws in
                #expect(response.status == .unprocessableContent)
                #expect(try errorMessage(response) == "model must not contain control, formatting or invisible characters (it contains U+7)")
            }
            #expect(try await database.count("device") == 0)
        }
    }

    // MARK: Venues

    @Test(arguments: StoreKind.allCases) func puttingAVenueCreatesThenUpdatesIt(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            let created = try await client.putVenue("4b5a-bar_1", token: token, timezone: "Australia/Sydney")
            #expect(created.status == .created)
            let venue = try decode(Venue.self, created)
            #expect(venue == Venue(id: "4b5a-bar_1", name: "The Quiet Table", latitude: -33.8688, longitude: 151.2093, timezone: "Australia/Sydney", checkins: 0, levelDB: nil, label: nil))
            #expect(String(buffer: created.body).contains(#""level_db":null"#))
            let updated = try await client.putVenue("4b5a-bar_1", token: token, timezone: "Australia/Sydney", name: "The Loud Table")
            #expect(updated.status == .ok)
            try await client.execute(uri: "/api/v1/venues/4b5a-bar_1", method: .get) { response throws in
                #expect(response.status == .ok)
                #expect(try decode(Venue.self, response).name == "The Loud Table")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func venueWritesNeedAValidTokenOfAnUnbannedDevice(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let body = try json(VenueUpsert(name: "x", latitude: 0, longitude: 0, timezone: "UTC"))
            try await client.execute(uri: "/api/v1/venues/v1", method: .put, headers: jsonHeaders, body: body) { response throws in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            }
            try await client.execute(uri: "/api/v1/venues/v1", method: .put, headers: bearer("not-a-token"), body: body) { response throws in
                #expect(response.status == .unauthorized)
            }
            let token = try await client.registerDevice()
            let device = try #require(try await database.string("SELECT id FROM device"))
            try await database.ban(UUID(uuidString: device)!)
            #expect(try await client.putVenue("v1", token: token).status == .forbidden)
            #expect(try await database.count("venue") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func badVenuesAreRefused(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            let badID = try await client.putVenue("no%20spaces", token: token)
            #expect(badID.status == .badRequest)
            #expect(try errorMessage(badID).contains("venue_id must be"))
            #expect(try await client.putVenue(String(repeating: "a", count: 65), token: token).status == .badRequest)
            #expect(try await client.putVenue("..%2F..%2Fetc", token: token).status == .badRequest)
            let badZone = try await client.putVenue("v1", token: token, timezone: "Mars/Olympus_Mons")
            #expect(badZone.status == .unprocessableContent)
            #expect(try errorMessage(badZone).contains("time zone of the tz database"))
            #expect(try await client.putVenue("v1", token: token, timezone: "GMT+5").status == .unprocessableContent)
            #expect(try await client.putVenue("v1", token: token, latitude: 91).status == .unprocessableContent)
            #expect(try await client.putVenue("v1", token: token, name: "  ").status == .unprocessableContent)
            #expect(try await database.count("venue") == 0)
            // Unicode is welcome.
            #expect(try await client.putVenue("v1", token: token, name: "Café Zoë 東京").status == .created)
        }
    }

    @Test(arguments: StoreKind.allCases) func anUnknownVenueIs404(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            try await client.execute(uri: "/api/v1/venues/nope", method: .get) { response throws in
                #expect(response.status == .notFound)
                #expect(try errorMessage(response) == "venue nope not found")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func venuesNearAPointComeNearestFirst(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            // Around Sydney Town Hall (-33.8732, 151.2061): ~0 m, ~550 m, ~1.1 km and ~5 km away.
            _ = try await client.putVenue("town-hall", token: token, name: "Town Hall Bar", latitude: -33.8732, longitude: 151.2061)
            _ = try await client.putVenue("qvb", token: token, name: "QVB Cafe", latitude: -33.8683, longitude: 151.2064)
            _ = try await client.putVenue("wynyard", token: token, name: "Wynyard Pub", latitude: -33.8633, longitude: 151.2061)
            _ = try await client.putVenue("bondi", token: token, name: "Bondi Bar", latitude: -33.8915, longitude: 151.2767)
            try await client.execute(uri: "/api/v1/venues?near=-33.8732,151.2061", method: .get) { response throws in
                let venues = try decode(VenueList.self, response).venues
                #expect(venues.map(\.id) == ["town-hall", "qvb"])
                #expect(venues[0].distanceM == 0)
                #expect(abs(try #require(venues[1].distanceM) - 545) < 10)
            }
            try await client.execute(uri: "/api/v1/venues?near=-33.8732,151.2061&radius=10000&limit=3", method: .get) { response throws in
                #expect(try decode(VenueList.self, response).venues.map(\.id) == ["town-hall", "qvb", "wynyard"])
            }
            try await client.execute(uri: "/api/v1/venues?near=-33.8732,151.2061&radius=10000&q=bar", method: .get) { response throws in
                #expect(try decode(VenueList.self, response).venues.map(\.id) == ["town-hall", "bondi"])
            }
            // Each word of q anywhere in the name, in any order; a word no name holds finds nothing.
            for q in ["bar+town", "hall%20bar", "HALL++town", "town+bar+hall"] {
                try await client.execute(uri: "/api/v1/venues?q=\(q)", method: .get) { response throws in
                    #expect(try decode(VenueList.self, response).venues.map(\.id) == ["town-hall"], "q=\(q)")
                }
            }
            try await client.execute(uri: "/api/v1/venues?near=-33.8732,151.2061&radius=10000&q=bar+bondi", method: .get) { response throws in
                #expect(try decode(VenueList.self, response).venues.map(\.id) == ["bondi"])
            }
            try await client.execute(uri: "/api/v1/venues?q=town+pub", method: .get) { response throws in
                #expect(try decode(VenueList.self, response).venues.isEmpty)
            }
            try await client.execute(uri: "/api/v1/venues?q=100%25", method: .get) { response throws in
                #expect(try decode(VenueList.self, response).venues.isEmpty)
            }
            try await client.execute(uri: "/api/v1/venues?q=pub", method: .get) { response throws in
                let venues = try decode(VenueList.self, response).venues
                #expect(venues.map(\.id) == ["wynyard"])
                #expect(venues[0].distanceM == nil)
                #expect(!String(buffer: response.body).contains("distance_m"))
            }
            for query in ["near=1", "near=a,b", "near=91,0", "near=0,0&radius=-1", "near=0,0&radius=1000001", "limit=0", "limit=101", "limit=x"] {
                try await client.execute(uri: "/api/v1/venues?\(query)", method: .get) { response throws in
                    #expect(response.status == .badRequest, "\(query)")
                }
            }
        }
    }

    // MARK: Check-ins

    @Test(arguments: StoreKind.allCases) func aGzippedCheckInIsStoredAndARetryGetsTheSameAnswer(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token, timezone: "UTC")
            let checkIn = makeCheckIn(venue: "v1", start: "2026-11-16T20:00:00Z", seconds: 300, level: -40, calibration: 112)
            var headers = bearer(token)
            headers[.contentEncoding] = "gzip"
            let body = try gzip(try json(checkIn))
            let first = try await client.execute(uri: "/api/v1/checkins", method: .post, headers: headers, body: body) { response throws in
                #expect(response.status == .created)
                return try decode(CheckInReceipt.self, response)
            }
            #expect(first == CheckInReceipt(id: checkIn.id, venueID: "v1", samples: 300, droppedSamples: 0, levelDB: 72, label: "moderate", status: .accepted))
            // The same upload again, this time not compressed: same content, so 200 and the same answer.
            let retry = try await client.postCheckIn(checkIn, token: token)
            #expect(retry.status == .ok)
            #expect(try decode(CheckInReceipt.self, retry) == first)
            var changed = checkIn
            changed.calibrationDB = 100
            let conflict = try await client.postCheckIn(changed, token: token)
            #expect(conflict.status == .conflict)
            #expect(try errorMessage(conflict).contains("different content"))
            #expect(try await database.count("checkin") == 1)
            #expect(try await database.storedSamples().count == 300)
        }
    }

    @Test(arguments: StoreKind.allCases) func checkInsNeedAValidTokenOfAnUnbannedDevice(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            let body = try json(makeCheckIn(venue: "v1", start: "2026-11-16T20:00:00Z"))
            try await client.execute(uri: "/api/v1/checkins", method: .post, headers: jsonHeaders, body: body) { response throws in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/api/v1/checkins", method: .post, headers: bearer(token + "x"), body: body) { response throws in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/api/v1/checkins", method: .post, headers: [.authorization: "Basic \(token)", .contentType: "application/json"], body: body) { response throws in
                #expect(response.status == .unauthorized)
            }
            let device = try #require(try await database.string("SELECT id FROM device"))
            try await database.ban(UUID(uuidString: device)!)
            try await client.execute(uri: "/api/v1/checkins", method: .post, headers: bearer(token), body: body) { response throws in
                #expect(response.status == .forbidden)
            }
            #expect(try await database.count("checkin") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func aGzipBombIsRefusedWhileInflating(store: StoreKind) async throws {
        try await withApp(store: store, settings: ServerSettings(maxBodyBytes: 64 * 1024)) { client, database in
            let token = try await client.registerDevice()
            var headers = bearer(token)
            headers[.contentEncoding] = "gzip"
            // 16 MiB of spaces compresses to ~16 KiB: within the limit on the wire, far beyond it inflated.
            let bomb = try gzip(ByteBuffer(repeating: UInt8(ascii: " "), count: 16 * 1024 * 1024))
            #expect(bomb.readableBytes < 64 * 1024)
            try await client.execute(uri: "/api/v1/checkins", method: .post, headers: headers, body: bomb) { response throws in
                #expect(response.status == .contentTooLarge)
                #expect(try errorMessage(response).contains("larger than 65536 bytes"))
            }
            // Plain bodies over the limit too.
            try await client.execute(uri: "/api/v1/checkins", method: .post, headers: bearer(token), body: ByteBuffer(repeating: UInt8(ascii: " "), count: 65 * 1024)) { response throws in
                #expect(response.status == .contentTooLarge)
            }
            #expect(try await database.count("checkin") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func brokenGzipIsA400AndUnknownEncodingsA415(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            let compressed = try gzip(try json(makeCheckIn(venue: "v1", start: "2026-11-16T20:00:00Z")))
            var headers = bearer(token)
            headers[.contentEncoding] = "gzip"
            let truncated = compressed.getSlice(at: 0, length: compressed.readableBytes - 6)!
            try await client.execute(uri: "/api/v1/checkins", method: .post, headers: headers, body: truncated) { response throws in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/v1/checkins", method: .post, headers: headers, body: ByteBuffer(string: "this is not gzip at all")) { response throws in
                #expect(response.status == .badRequest)
                #expect(try errorMessage(response).contains("gzip"))
            }
            headers[.contentEncoding] = "br"
            try await client.execute(uri: "/api/v1/checkins", method: .post, headers: headers, body: compressed) { response throws in
                #expect(response.status == .unsupportedMediaType)
            }
            #expect(try await database.count("checkin") == 0)
        }
    }

    /// A way to spoil a valid check-in, and the message the server must answer with.
    struct Spoiler: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let apply: @Sendable (inout CheckIn) -> Void
        let message: String
    }

    static let spoilers: [Spoiler] = [
        Spoiler(testDescription: "avg above peak", apply: { c in c.samples[3] = Sample(t: 3, avg: -10, peak: -20) }, message: "samples[3]: avg -10.0 is above peak -20.0"),
        Spoiler(testDescription: "level above 0 dBFS", apply: { c in c.samples[0].peak = 1 }, message: "samples[0].peak must be a level in dBFS between -160 and 0"),
        Spoiler(testDescription: "level below the floor", apply: { c in c.samples[5].avg = -170 }, message: "samples[5].avg must be a level in dBFS between -160 and 0"),
        Spoiler(testDescription: "no samples", apply: { c in c.samples = [] }, message: "samples must not be empty"),
        Spoiler(testDescription: "t not increasing", apply: { c in c.samples[7].t = 6 }, message: "samples[7].t must be greater than the t before it"),
        Spoiler(
            testDescription: "more than 12 hours",
            apply: { c in
                c.intervalS = 60
                c.samples = (0...720).map { Sample(t: Double($0) * 60, avg: -50, peak: -40) }
            }, message: "a check-in holds at most 12 hours of samples"),
        Spoiler(testDescription: "intervals longer than a minute", apply: { c in c.intervalS = 1000 }, message: "interval_s must be a whole number of seconds from 1 to 60, not 1000"),
        Spoiler(testDescription: "started in the future", apply: { c in c.startedAt = Date().addingTimeInterval(16 * 60) }, message: "started_at is more than 15 minutes in the future"),
        Spoiler(testDescription: "unknown venue", apply: { c in c.venueID = "elsewhere" }, message: "venue elsewhere does not exist: create it with PUT /api/v1/venues/elsewhere"),
        Spoiler(testDescription: "Z weighting", apply: { c in c.weighting = .z }, message: "weighting must be \"A\": venue loudness is kept in dB(A)"),
        Spoiler(testDescription: "absurd calibration", apply: { c in c.calibrationDB = 1000 }, message: "calibration_db must be between 0 and 200"),
        Spoiler(testDescription: "events out of order", apply: { c in c.events = [LoudEvent(t: 5, peak: -3, durationS: 1), LoudEvent(t: 5, peak: -3, durationS: 1)] }, message: "events[1].t must be between 0 and 43200 seconds and greater than the t before it"),
    ]

    @Test(arguments: spoilers)
    func valuesOutOfRangeAre422AndStoreNothing(spoiler: Spoiler) async throws {
        try await withApp { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            var checkIn = makeCheckIn(venue: "v1", start: "2026-11-16T20:00:00Z")
            spoiler.apply(&checkIn)
            let response = try await client.postCheckIn(checkIn, token: token)
            #expect(response.status == .unprocessableContent)
            #expect(try errorMessage(response) == spoiler.message)
            #expect(try await database.count("checkin") == 0)
            #expect(try await database.storedSamples().count == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func malformedCheckInsAre400(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            for (body, message) in [
                ("[1, 2", "malformed JSON"),
                (#"{"id": "x"}"#, "id: "),
                (#"{"id": "6f9619ff-8b86-d011-b42d-00c04fc964ff", "venue_id": "v1", "started_at": "2026-11-16T20:00:00Z", "samples": [{"t": 0, "avg": "loud", "peak": 0}]}"#, "samples[0].avg: expected a number"),
                (#"{"id": "6f9619ff-8b86-d011-b42d-00c04fc964ff", "venue_id": "v1", "started_at": "2026-11-16T20:00:00Z", "samples": [{"t": 0, "avg": NaN, "peak": 0}]}"#, "malformed JSON"),
            ] {
                try await client.execute(uri: "/api/v1/checkins", method: .post, headers: bearer(token), body: ByteBuffer(string: body)) { response throws in
                    #expect([.badRequest, .unprocessableContent].contains(response.status), "\(body)")
                    #expect(try errorMessage(response).contains(message), "\(body)")
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func fiftyConcurrentCheckInsAreAllStored(store: StoreKind) async throws {
        try await withApp(store: store) { client, database in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<50 {
                    let start = Timestamp.format(Timestamp.parse("2026-11-16T00:00:00Z")!.addingTimeInterval(Double(index) * 3600))
                    group.addTask { try await client.postCheckIn(makeCheckIn(venue: "v1", start: start, seconds: 30), token: token).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.count == 50 && statuses.allSatisfy { $0 == .created })
            #expect(try await database.count("checkin") == 50)
            #expect(try await database.storedSamples().count == 50 * 30)
            #expect(try await database.repository.verify() == [])
        }
    }

    // MARK: Loudness

    @Test(arguments: StoreKind.allCases) func loudnessIsInTheVenuesLocalTime(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("syd", token: token, timezone: "Australia/Sydney")
            try await client.execute(uri: "/api/v1/venues/syd/loudness", method: .get) { response throws in
                #expect(response.status == .notFound)
                #expect(try errorMessage(response) == "venue syd has no usable check-in yet")
            }
            // Sunday 23:30 UTC is Monday 10:30 in Sydney; 20 minutes at 60 dB(A).
            #expect(try await client.postCheckIn(makeCheckIn(venue: "syd", start: "2026-11-15T23:30:00Z", seconds: 1200), token: token).status == .created)
            try await client.execute(uri: "/api/v1/venues/syd/loudness", method: .get, headers: [.acceptEncoding: "gzip, deflate"]) { response throws in
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == "gzip")
                let loudness = try decode(Loudness.self, response)
                #expect(loudness.venueID == "syd" && loudness.unit == "dBA")
                #expect(loudness.overall == LoudnessCell(levelDB: 60, label: "quiet", checkins: 1, samples: 1200))
                #expect(loudness.byWeekday.map(\.weekday) == Weekday.allCases)
                #expect(loudness.byWeekday[0].checkins == 1 && loudness.byWeekday[1].checkins == 0)
                #expect(loudness.byHour.map(\.hour) == Array(0..<24))
                #expect(loudness.byHour[10] == LoudnessCell(hour: 10, levelDB: 60, label: "quiet", checkins: 1, samples: 1200))
                #expect(loudness.grid.map(\.weekday) == Weekday.allCases)
                #expect(loudness.grid.allSatisfy { $0.hours.count == 24 })
                #expect(loudness.grid[0].hours[10].confidence == .low)
                #expect(loudness.grid[6].hours[23] == LoudnessCell(weekday: .sunday, hour: 23, levelDB: nil, label: nil, checkins: 0, samples: 0))
                let filled = loudness.grid.flatMap(\.hours).filter { $0.checkins > 0 }
                #expect(filled.count == 1)
            }
            try await client.execute(uri: "/api/v1/venues/syd", method: .get) { response throws in
                let venue = try decode(Venue.self, response)
                #expect(venue.checkins == 1 && venue.levelDB == 60 && venue.label == "quiet")
            }
            try await client.execute(uri: "/api/v1/venues/elsewhere/loudness", method: .get) { response throws in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func labelsComeFromTheScaleInForce() async throws {
        let strict = LabelScale(unit: "dBA", bands: [.init(label: "hushed", maxDB: 50), .init(label: "lively", maxDB: nil)])
        try await withApp(settings: ServerSettings(scale: strict)) { client, _ in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            let receipt = try decode(CheckInReceipt.self, try await client.postCheckIn(makeCheckIn(venue: "v1", start: "2026-11-16T20:00:00Z"), token: token))
            #expect(receipt.label == "lively")
            try await client.execute(uri: "/api/v1/scale", method: .get) { response throws in
                #expect(try decode(LabelScale.self, response) == strict)
            }
        }
    }

    // MARK: The rest

    @Test(arguments: StoreKind.allCases) func healthScaleAndOpenAPI(store: StoreKind) async throws {
        try await withApp(store: store) { client, _ in
            try await client.execute(uri: "/healthz", method: .get) { response throws in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "ok")
            }
            try await client.execute(uri: "/api/v1/scale", method: .get) { response throws in
                #expect(try decode(LabelScale.self, response) == .standard)
            }
            try await client.execute(uri: "/api/v1/openapi.yaml", method: .get) { response throws in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/yaml") == true)
                let document = String(buffer: response.body)
                #expect(document.hasPrefix("openapi: 3.1"))
                for path in ["/healthz", "/api/v1/devices", "/api/v1/venues", "/api/v1/venues/{venue_id}", "/api/v1/venues/{venue_id}/loudness", "/api/v1/checkins", "/api/v1/scale", "/api/v1/openapi.yaml"] {
                    #expect(document.contains("\n  \(path):\n"), "\(path) is not documented")
                }
            }
            try await client.execute(uri: "/api/v1/nothing-here", method: .get) { response throws in
                #expect(response.status == .notFound)
                #expect(try errorMessage(response).contains("/api/v1/nothing-here"))
            }
        }
    }

    @Test(arguments: [
        ("/api/v1/devices", HTTPRequest.Method.get), ("/api/v1/venues", .post), ("/api/v1/venues/v1", .delete),
        ("/api/v1/venues/v1/loudness", .put), ("/api/v1/checkins", .get), ("/api/v1/scale", .patch),
        ("/healthz", .post), ("/api/v1/openapi.yaml", .trace),
    ])
    func aKnownPathWithAnotherMethodIs405(path: String, method: HTTPRequest.Method) async throws {
        try await withApp { client, _ in
            try await client.execute(uri: path, method: method) { response throws in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] != nil)
                #expect(try errorMessage(response).contains("not allowed"))
            }
        }
    }
}
