import Foundation
import HearClearCore
import TestCluster
import Testing

@testable import HearClearServer

/// The migration that applies the silence rule (SQLite 0018, PostgreSQL 0017) to a store written
/// before it: a check-in whose silence counted counts as the rule says once the server opens it,
/// and `verify` passes with no `rebuild` by hand.
struct SilenceDroppedMigrationTests {
    @Test(arguments: StoreKind.allCases) func aCheckInStoredWithItsSilenceCountedIsDerivedAgain(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        _ = try await database.repository.saveVenue(id: "venue-1", VenueUpsert(name: "Venue", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        var muted = makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 1), level: -50)
        for index in 40..<60 { muted.samples[index] = Sample(t: Double(index), avg: -160, peak: -160) }
        _ = try await database.repository.storeCheckIn(muted, contentHash: CheckInController.contentHash(muted), by: device, at: Date())
        // As the release before stored it: nothing dropped, and the silence in its level (40 s at
        // 60 dB(A) and 20 at −50 make 58.2).
        try await database.tamperWithSamples(of: muted.id) { columns in columns.dropped = columns.dropped.map { _ in false } }
        try await database.execute("UPDATE checkin SET dropped_samples = 0, level_db = 58.2 WHERE id = '\(muted.id.wireString)'")
        #expect(try await database.repository.verify().isEmpty == false)
        try await database.execute(
            kind == .sqlite
                ? "DELETE FROM grdb_migrations WHERE identifier = '0018_silence_dropped'"
                : "DELETE FROM hearclear_migration WHERE name = '0017_silence_dropped'")

        let reopened = try await OpenedStore.open(database.location, logger: quietLogger)
        reopened.close()
        #expect(try await database.repository.verify() == [])
        #expect(try await database.string("SELECT dropped_samples FROM checkin WHERE id = '\(muted.id.wireString)'") == "20")
        let level = try #require(try await database.repository.venue(id: "venue-1")?.aggregate?.levelDB)
        #expect(abs(level - 60) < 0.1, "\(level)")
    }
}
