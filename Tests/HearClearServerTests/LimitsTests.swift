import Foundation
import HearClearCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
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
        let limiter = RateLimiter(perMinute: 6, now: { clock.now() })
        for _ in 0..<6 { #expect(limiter.take("device:a", perMinute: 6) == nil) }
        let wait = limiter.take("device:a", perMinute: 6)
        #expect(wait == .seconds(10))  // 6 a minute: one every 10 s
        #expect(limiter.take("device:b", perMinute: 6) == nil)  // buckets are per key
        clock.advance(.seconds(10))
        #expect(limiter.take("device:a", perMinute: 6) == nil)
        #expect(limiter.take("device:a", perMinute: 6) != nil)
        clock.advance(.seconds(3600))
        for _ in 0..<6 { #expect(limiter.take("device:a", perMinute: 6) == nil) }  // never more than the burst
        #expect(limiter.take("device:a", perMinute: 6) != nil)
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

    @Test func writesPastTheRateAre429WithRetryAfter() async throws {
        let database = try await TemporaryDatabase()
        let app = Application(router: try await buildRouter(repository: database.repository, changes: database.changes, settings: ServerSettings(rateLimit: 2), logger: quietLogger), logger: quietLogger)
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

    @Test func verifyFindsWhatWasTamperedWithAndRebuildRepairsIt() async throws {
        let database = try await TemporaryDatabase()
        let device = try await database.registerDevice()
        _ = try await database.repository.saveVenue(id: "v1", VenueUpsert(name: "V", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        for week in 0..<7 {
            let start = mondayEvening(weeksBefore: week)
            let checkIn = makeCheckIn(venue: "v1", start: start, level: week == 6 ? -30 : -50)
            _ = try await database.repository.storeCheckIn(checkIn, contentHash: Data([UInt8(week)]), by: device, at: Date())
        }
        #expect(try await database.repository.verify() == [])
        let tampering = [
            "UPDATE loudness SET energy = energy * 2 WHERE weekday = 7 AND hour = 24",
            "UPDATE checkin_hour SET samples = samples + 1 WHERE checkin_seq = 2",
            "UPDATE checkin SET status = 'accepted' WHERE status = 'outlier'",
            "UPDATE sample SET dropped = 1 WHERE t = 5",
            "UPDATE checkin SET level_db = level_db + 3 WHERE seq = 1",
        ]
        for statement in tampering {
            try await database.execute(statement)
            #expect(try await database.repository.verify().isEmpty == false, "\(statement)")
            try await database.repository.rebuild()
            #expect(try await database.repository.verify() == [], "\(statement)")
        }
    }
}
