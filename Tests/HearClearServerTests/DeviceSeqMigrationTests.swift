import Foundation
import GRDB
import HearClearCore
import Testing

@testable import HearClearServer

/// SQLite's migration 0013, which has each check-in name its device by the device's row number
/// instead of its id, on a store laid out as the release before it left it
/// (`SampleColumnsMigrationTests.fillAsAnEarlierRelease`: v1, v2, pruned and banned check-ins).
struct DeviceSeqMigrationTests {
    @Test func checkInsKeepTheirDevicesWhenTheyNameThemByNumber() async throws {
        let database = try await TemporaryDatabase(.sqlite)
        let (device, v1, pruned) = try await SampleColumnsMigrationTests.fillAsAnEarlierRelease(database)
        let devices = try await database.repository.devices()
        let detail = try #require(try await database.repository.venueDetail(id: "v1"))
        let cells = try await database.repository.loudness(venueID: "v1")
        #expect(devices.count == 2 && devices.contains { $0.banned && $0.checkIns == 1 })
        try await Self.layOutAsBefore(database)
        #expect(try await database.string("SELECT COUNT(DISTINCT device_id) FROM checkin") == "2")

        let reopened = try await OpenedStore.open(database.location, logger: quietLogger)
        defer { reopened.close() }
        let store = reopened.store
        #expect(try await store.devices() == devices)
        #expect(try await store.venueDetail(id: "v1")?.checkIns == detail.checkIns)
        #expect(try await store.verify() == [])
        // Equal but for the last bits of the energies: the migrations after 0013 include one that
        // derives every cell again (0018), summing in another order.
        let after = try #require(try await store.loudness(venueID: "v1")), before = try #require(cells)
        #expect(after.count == before.count && zip(after, before).allSatisfy { $0.matches($1) }, "\(after)")
        #expect(try await store.uploadedCheckIn(id: v1.id, by: device)?.samples == v1.samples)
        #expect(try await store.uploadedCheckIn(id: pruned.id, by: device)?.samples == [])
        let other = try #require(devices.first { $0.id != device }).id
        #expect(try await store.uploadedCheckIn(id: v1.id, by: other) == nil)
        await #expect(throws: (any Error).self) { try await database.strings("SELECT device_id FROM checkin") }
        // Migrations journal in a temporary file; the group commit's savepoints in memory again after them.
        let writer = try #require((store as? SQLiteRepository)?.pool)
        #expect(try await writer.write { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") } == 2)

        // A device registered afterwards gets a number of its own, and deleting one takes only its check-ins.
        let newcomer = try await store.registerDevice(DeviceRegistration(model: "New Mic", platform: "linux"), tokenHash: Data([7]), at: Date())
        let checkIn = makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 3), seconds: 60)
        guard case .created = try await store.storeCheckIn(checkIn, contentHash: Data([1]), by: newcomer, at: Date()) else {
            Issue.record("a new device's check-in was not stored")
            return
        }
        #expect(try await store.devices().first { $0.id == newcomer }?.checkIns == 1)
        #expect(try await store.deleteDevice(other))
        #expect(try await database.int("SELECT COUNT(*) FROM checkin") == 4)
        #expect(try await store.verify() == [])
    }

    /// The store as SQLite's migrations before 0013 leave it: the device without a row number of
    /// its own, each check-in holding its device's id (and none of the later migrations' columns).
    static func layOutAsBefore(_ database: TemporaryDatabase) async throws {
        let pool = try #require((database.repository as? SQLiteRepository)?.pool)
        try await pool.writeWithoutTransaction { db in
            // As a migration does: a table built again with foreign keys on would take its
            // check-ins' hours and events with it.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.inTransaction {
                try db.execute(
                    sql: """
                        CREATE TABLE device_old (id TEXT PRIMARY KEY NOT NULL, token_hash BLOB NOT NULL UNIQUE, model TEXT NOT NULL,
                            platform TEXT NOT NULL, banned INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL, last_seen_at REAL NOT NULL);
                        INSERT INTO device_old SELECT id, token_hash, model, platform, banned, created_at, last_seen_at FROM device;
                        ALTER TABLE checkin ADD COLUMN device_id TEXT;
                        UPDATE checkin SET device_id = (SELECT id FROM device WHERE seq = device_seq);
                        CREATE TABLE checkin_old AS SELECT * FROM checkin;
                        ALTER TABLE checkin_old DROP COLUMN device_seq;
                        ALTER TABLE checkin_old DROP COLUMN classes_model;
                        DROP TABLE checkin;
                        ALTER TABLE checkin_old RENAME TO checkin;
                        DROP TABLE device;
                        ALTER TABLE device_old RENAME TO device;
                        ALTER TABLE loudness DROP COLUMN rounding;
                        ALTER TABLE venue DROP COLUMN name_folded;
                        DELETE FROM grdb_migrations WHERE identifier >= '0013';
                        """)
                return .commit
            }
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
    }
}
