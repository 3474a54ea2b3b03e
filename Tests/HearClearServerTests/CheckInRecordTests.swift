import Foundation
import GRDB
import HearClearCore
import Testing

@testable import HearClearServer

@Suite struct CheckInRecordTests {
    /// `CheckInRecord` spells its columns out to insert fast and reads them back through
    /// `Codable`: every column written must read back as it was.
    @Test func aCheckInRecordReadsBackAsWritten() throws {
        let database = try DatabaseQueue()
        _ = try SQLiteDatabase.migrate(database)
        let device = UUID(), id = UUID()
        var record = CheckInRecord(
            seq: nil, id: id, venueId: "v-1", deviceSeq: 7, contentHash: Data([1, 2, 3]), startedAt: Date(timeIntervalSince1970: 1_780_000_000.5),
            intervalS: 0.5, weighting: .a, calibrationDb: 97.25, calibrationSource: .checkIn, samples: 60, droppedSamples: 2, levelDb: 71.5,
            homeWeekday: 4, homeHour: 21, status: .outlier, receivedAt: Date(timeIntervalSince1970: 1_780_000_100.25), markedOutlier: true,
            samplesPrunedAt: Date(timeIntervalSince1970: 1_790_000_000), sampleColumns: Data([9, 8, 7]))
        try database.write { db in
            try db.execute(
                sql: "INSERT INTO device (seq, id, token_hash, model, platform, banned, created_at, last_seen_at) VALUES (7, ?, x'00', 'm', 'p', 0, 0, 0)",
                arguments: [device.wireString])
            try db.execute(
                sql: "INSERT INTO venue (id, name, latitude, longitude, timezone, created_at, updated_at) VALUES ('v-1', 'V', 0, 0, 'UTC', 0, 0)")
            try record.insert(db)
        }
        let read = try database.read { db in try CheckInRecord.fetchOne(db, sql: "SELECT * FROM checkin WHERE id = ?", arguments: [id.wireString]) }
        #expect(read.map(String.init(describing:)) == String(describing: record))
        // Ids as lowercase text, the device by its row number, instants as seconds since 1970: what
        // the other tables and statements expect.
        let raw = try database.read { db in
            try Row.fetchOne(db, sql: "SELECT c.id, d.id AS device, c.started_at FROM checkin c JOIN device d ON d.seq = c.device_seq")
        }
        #expect(raw?["id"] == id.wireString && raw?["device"] == device.wireString && raw?["started_at"] == 1_780_000_000.5)
    }
}
