import Foundation
import HearClearAnalysis
import HearClearCore
import TestCluster
import Testing

@testable import HearClearServer

/// The migration after which every sum counts seconds (SQLite 0016, PostgreSQL 0015), on a store
/// whose check-in of 10-second intervals was summed a second a sample, as every release before it did.
struct SecondsWeighedMigrationTests {
    @Test(arguments: StoreKind.allCases) func aCheckInOfLongerIntervalsIsWeighedAgainByItsSeconds(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        _ = try await database.repository.saveVenue(
            id: "v1", VenueUpsert(name: "Venue", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        _ = try await database.repository.storeCheckIn(
            makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 2), seconds: 600, level: -50), contentHash: Data([1]), by: device, at: Date())
        // Ten minutes at 80 dB(A) in sixty 10-second intervals, stored as the release before
        // summed it: a second a sample (here by storing it in 1-second intervals, then saying 10).
        var long = makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 1), seconds: 60, level: -30)
        long.samples = long.samples.enumerated().map { index, _ in Sample(t: Double(index) * 10, avg: -30, peak: -18) }
        _ = try await database.repository.storeCheckIn(long, contentHash: Data([2]), by: device, at: Date())
        try await database.execute("UPDATE checkin SET interval_s = 10 WHERE id = '\(long.id.wireString)'")
        try await database.execute(
            kind == .sqlite
                ? "DELETE FROM grdb_migrations WHERE identifier = '0016_seconds_weighed'"
                : "DELETE FROM hearclear_migration WHERE name = '0015_seconds_weighed'")
        #expect(try await database.repository.verify() != [])

        let reopened = try await OpenedStore.open(database.location, logger: quietLogger)
        defer { reopened.close() }
        #expect(try await reopened.store.verify() == [])
        let overall = try #require(try await reopened.store.loudness(venueID: "v1")?.first { $0.weekday == 7 && $0.hour == 24 })
        // Ten minutes at each level: 10·log10((10^8 + 10^6) / 2) = 77.03 dB(A), where a sample a
        // second made it 10·log10((60·10^8 + 600·10^6) / 660) = 70.0.
        let level = try #require(overall.levelDB)
        #expect(overall.samples == 1200 && abs(level - 77.03) < 0.01, "\(overall)")
    }
}
