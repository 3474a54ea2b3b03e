import Foundation
import HearClearCore
import TestCluster
import Testing

@testable import HearClearServer

/// The migration that keeps each venue's name folded for searches (SQLite 0017, PostgreSQL 0016),
/// on a store whose venues were named before it: their names are folded as new ones are.
struct VenueNameFoldedMigrationTests {
    @Test(arguments: StoreKind.allCases) func venuesNamedBeforeAreFoundWithoutTheirAccents(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        for (id, name) in [("muller", "Café Müller"), ("senor", "El Señor")] {
            _ = try await database.repository.saveVenue(id: id, VenueUpsert(name: name, latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        }
        try await database.execute("ALTER TABLE venue DROP COLUMN name_folded")
        try await database.execute(
            kind == .sqlite
                ? "DELETE FROM grdb_migrations WHERE identifier = '0017_venue_name_folded'"
                : "DELETE FROM hearclear_migration WHERE name = '0016_venue_name_folded'")

        let reopened = try await OpenedStore.open(database.location, logger: quietLogger)
        defer { reopened.close() }
        for (words, expected) in [("cafe muller", ["muller"]), ("SENOR", ["senor"]), ("señor", ["senor"])] {
            let found = try await reopened.store.venues(matching: VenueQuery(near: nil, radiusM: 1000, nameWords: words, limit: 10)).map(\.id)
            #expect(found == expected, "\(words)")
        }
    }
}
