import Foundation
import HTTPTypes
import HearClearAnalysis
import HearClearCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import TestCluster
import Testing

@testable import HearClearServer

@Suite struct LimitsTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        let instant = Mutex(ContinuousClock.now)
        func advance(_ duration: Duration) { instant.withLock { $0 = $0.advanced(by: duration) } }
        func now() -> ContinuousClock.Instant { instant.withLock { $0 } }
    }

    @Test func aBucketAllowsABurstThenRefillsAtTheRate() {
        let clock = ManualClock()
        let buckets = LocalRateBuckets(now: { clock.now() })
        for _ in 0..<6 { #expect(buckets.take("device:a", perMinute: 6) == nil) }
        let wait = buckets.take("device:a", perMinute: 6)
        #expect(wait == .seconds(10))  // 6 a minute: one every 10 s
        #expect(buckets.take("device:b", perMinute: 6) == nil)  // buckets are per key
        clock.advance(.seconds(10))
        #expect(buckets.take("device:a", perMinute: 6) == nil)
        #expect(buckets.take("device:a", perMinute: 6) != nil)
        clock.advance(.seconds(3600))
        for _ in 0..<6 { #expect(buckets.take("device:a", perMinute: 6) == nil) }  // never more than the burst
        #expect(buckets.take("device:a", perMinute: 6) != nil)
    }

    /// Two servers on one PostgreSQL share each device's bucket: the device gets its writes a
    /// minute in all, not per server, even when both take at once.
    @Test func serversOnOnePostgreSQLShareTheBuckets() async throws {
        let database = try await TemporaryDatabase(.postgres)
        let url = try #require(database.url)
        let other = try await OpenedStore.open(.postgres(try PostgresAddress(url: url)), logger: quietLogger)
        defer { other.close() }
        // Their clocks stand still, so no token comes back while the 20 run, however slowly.
        let now = Date()
        let servers = try [database.opened.rateBuckets, other.rateBuckets].map { try #require($0 as? PostgresRateBuckets).frozen(at: now) }
        let refused = try await withThrowingTaskGroup(of: Bool.self) { group in
            for attempt in 0..<20 {
                group.addTask { try await servers[attempt % 2].take("device:shared", perMinute: 12) != nil }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(refused == 8, "\(refused) of 20 refused")
        // One every 5 s.
        #expect(try await servers[0].take("device:shared", perMinute: 12) == .seconds(5))
        #expect(try await servers[1].take("device:another", perMinute: 12) == nil)
    }

    @Test func theAddressBehindATrustedProxyIsTheOneItForwards() {
        func request(_ forwarded: [String]) -> Request {
            var headers = HTTPFields()
            for value in forwarded { headers.append(HTTPField(name: .init("X-Forwarded-For")!, value: value)) }
            return Request(head: HTTPRequest(method: .post, scheme: "http", authority: "x", path: "/", headerFields: headers), body: .init(buffer: ByteBuffer()))
        }
        let proxies: Set<String> = ["127.0.0.1", "10.0.0.2"]
        // A client talking to the server directly cannot choose its address by sending the header.
        #expect(ClientAddress.of(request(["198.51.100.7"]), peer: "203.0.113.9", trustedProxies: proxies) == "203.0.113.9")
        // Through nginx: the address nginx appended, not what the client wrote before it.
        #expect(ClientAddress.of(request(["1.2.3.4, 198.51.100.7"]), peer: "127.0.0.1", trustedProxies: proxies) == "198.51.100.7")
        #expect(ClientAddress.of(request(["1.2.3.4", "198.51.100.7, 10.0.0.2"]), peer: "127.0.0.1", trustedProxies: proxies) == "198.51.100.7")
        // Nothing forwarded, or rubbish: the proxy itself.
        #expect(ClientAddress.of(request([]), peer: "127.0.0.1", trustedProxies: proxies) == "127.0.0.1")
        #expect(ClientAddress.of(request(["not an address"]), peer: "127.0.0.1", trustedProxies: proxies) == "127.0.0.1")
        #expect(ClientAddress.normalised("::0001") == "::1")
    }

    @Test func trustedProxiesAreReadFromTheConfigFileAsAddresses() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hearclear-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"trusted_proxies": ["127.0.0.1", "::0001"]}"#.utf8).write(to: file)
        #expect(try ServerSettings.load(contentsOf: file.path).trustedProxies == ["127.0.0.1", "::1"])
        try Data(#"{"trusted_proxies": ["nginx"]}"#.utf8).write(to: file)
        #expect(throws: ServerSettings.InvalidFile.self) { try ServerSettings.load(contentsOf: file.path) }
    }

    /// Was: `config file F is not valid: DecodingError.typeMismatch: expected value of type Double.
    /// Path: default_calibration_db. Debug description: …` — Swift's words, not the operator's.
    @Test func aConfigFileOfTheWrongShapeIsSaidInTheFilesTerms() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hearclear-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        for (text, words) in [
            (#"{"default_calibration_db": "110"}"#, "default_calibration_db: expected a number"),
            (#"{"admin_password": 12345678}"#, "admin_password: expected a string"),
            // Foundation names no field here: the number parses, and is no whole number.
            (#"{"max_body_bytes": 1.5}"#, "a number does not fit its field: a fraction where a whole number is expected"),
            (#"{"trusted_proxies": "127.0.0.1"}"#, "trusted_proxies: expected an array"),
            (#"{"scale": {"unit": "dBA", "bands": [{"label": "quiet"}, {"max_db": 70}]}}"#, "scale.bands[1].label is missing"),
            ("[]", "top level: expected an object"),
            (#"{"retention_days": 30"#, "malformed JSON"),
        ] {
            try Data(text.utf8).write(to: file)
            let error = #expect(throws: ServerSettings.InvalidFile.self) { try ServerSettings.load(contentsOf: file.path) }
            let message = error?.description ?? ""
            #expect(message.hasPrefix("config file \(file.path): ") && message.contains(words), "\(text): \(message)")
            #expect(!message.contains("DecodingError") && !message.contains("Debug description"), "\(text): \(message)")
        }
    }

    @Test func theUploadGateTurnsAwayWhatIsOverCapacity() async throws {
        let gate = UploadGate(capacity: 1)
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        async let first: Void = gate.run {
            enteredContinuation.yield()
            for await _ in release { break }
        }
        for await _ in entered { break }
        await #expect(throws: HTTPError.self) { try await gate.run {} }
        releaseContinuation.yield()
        try await first
        try await gate.run {}  // free again
    }

    @Test(arguments: StoreKind.allCases) func writesPastTheRateAre429WithRetryAfter(store: StoreKind) async throws {
        let database = try await TemporaryDatabase(store)
        let app = Application(router: try await buildRouter(store: database.opened, settings: ServerSettings(rateLimit: 2), logger: quietLogger), logger: quietLogger)
        try await app.test(.router) { client in
            let token = try await client.registerDevice()
            #expect(try await client.putVenue("v1", token: token).status == .created)
            #expect(try await client.putVenue("v1", token: token).status == .ok)
            let limited = try await client.putVenue("v1", token: token)
            #expect(limited.status == .tooManyRequests)
            // 2 a minute: the next write is at most 30 s away (the exact wait is tested above on a manual clock).
            #expect(limited.headers[.retryAfter].flatMap(Int.init).map { (1...30).contains($0) } == true)
            #expect(try errorMessage(limited).contains("too many writes from this device"))
            // Reads are not limited.
            try await client.execute(uri: "/api/v1/venues/v1", method: .get) { response throws in #expect(response.status == .ok) }
            // Another device has its own allowance.
            let other = try await client.registerDevice()
            #expect(try await client.putVenue("v2", token: other).status == .created)
        }
    }

    @Test(arguments: StoreKind.allCases) func verifyFindsWhatWasTamperedWithAndRebuildRepairsIt(store: StoreKind) async throws {
        let database = try await TemporaryDatabase(store)
        let device = try await database.registerDevice()
        _ = try await database.repository.saveVenue(id: "v1", VenueUpsert(name: "V", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        var first: UUID?
        for week in 0..<7 {
            let start = mondayEvening(weeksBefore: week)
            let checkIn = makeCheckIn(venue: "v1", start: start, level: week == 6 ? -30 : -50)
            first = first ?? checkIn.id
            _ = try await database.repository.storeCheckIn(checkIn, contentHash: Data([UInt8(week)]), by: device, at: Date())
        }
        #expect(try await database.repository.verify() == [])
        let tampering = [
            "UPDATE loudness SET energy = energy * 2 WHERE weekday = 7 AND hour = 24",
            "UPDATE checkin_hour SET samples = samples + 1 WHERE checkin_seq = 2",
            "UPDATE checkin SET status = 'accepted' WHERE status = 'outlier'",
            "UPDATE checkin SET level_db = level_db + 3 WHERE seq = 1",
        ]
        for statement in tampering {
            try await database.execute(statement)
            #expect(try await database.repository.verify().isEmpty == false, "\(statement)")
            try await database.repository.rebuild()
            #expect(try await database.repository.verify() == [], "\(statement)")
        }

        // A dropped flag the spike filter does not give, inside the samples blob.
        let checkIn = try #require(first)
        try await database.tamperWithSamples(of: checkIn) { $0.dropped[5] = true }
        #expect(try await database.repository.verify() == ["check-in \(checkIn.wireString): dropped samples differ from the rules' (silence, then spikes)"])
        try await database.repository.rebuild()
        #expect(try await database.repository.verify() == [])

        // A blob that cannot be read: verify names the check-in and goes on; rebuild refuses
        // rather than derive from nothing, and changes nothing.
        let cells = try await database.repository.loudness(venueID: "v1")
        try await database.execute("UPDATE checkin SET sample_columns = \(database.blob(Data([1, 200, 1, 0]))) WHERE id = '\(checkIn.wireString)'")
        let differences = try await database.repository.verify()
        #expect(differences.count == 1 && differences[0].hasPrefix("check-in \(checkIn.wireString): samples blob"), "\(differences)")
        await #expect(throws: SampleColumns.Unreadable.self) { try await database.repository.rebuild() }
        #expect(try await database.repository.loudness(venueID: "v1") == cells)
    }
}
