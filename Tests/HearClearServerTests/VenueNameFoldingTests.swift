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

/// A venue renamed outside the server (the sqlite3 shell, psql) keeps its old folding: `verify`
/// says so, and `rebuild` folds it again.
struct VenueNameFoldingVerificationTests {
    @Test(arguments: StoreKind.allCases) func aNameChangedOutsideTheServerIsFoundByVerifyAndFoldedByRebuild(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        _ = try await database.repository.saveVenue(id: "muller", VenueUpsert(name: "Café Müller", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        #expect(try await database.repository.verify() == [])
        try await database.execute("UPDATE venue SET name = 'Müller Bräu' WHERE id = 'muller'")
        #expect(try await database.repository.verify() == ["venue muller: searched as “cafe muller”, where its name “Müller Bräu” folds to “muller brau”"])
        try await database.repository.rebuild()
        #expect(try await database.repository.verify() == [])
        let found = try await database.repository.venues(matching: VenueQuery(near: nil, radiusM: 1000, nameWords: "brau", limit: 10)).map(\.id)
        #expect(found == ["muller"])
    }
}
