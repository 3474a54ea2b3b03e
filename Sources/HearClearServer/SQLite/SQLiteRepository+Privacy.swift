import Foundation
import GRDB
import HearClearCore

extension SQLiteRepository {
    public func deleteDevice(_ id: UUID) async throws -> Bool {
        let device = id.wireString
        let venues = try await pool.write { db -> [String]? in
            guard let seq = try Self.seq(ofDevice: id, in: db) else { return nil }
            let venues = try SQLRequest<String>("SELECT DISTINCT venue_id FROM checkin WHERE device_seq = \(seq)").fetchAll(db)
            // Samples, events and per-hour sums go with their check-ins (ON DELETE CASCADE).
            try db.execute(literal: "DELETE FROM checkin WHERE device_seq = \(seq)")
            try db.execute(literal: "UPDATE venue SET owner_device_id = NULL WHERE owner_device_id = \(device)")
            let deleted = VenueActor.deletedDevice
            try db.execute(
                literal: """
                    UPDATE venue_change SET actor = \(deleted) WHERE actor = \(VenueActor.device(id).recorded);
                    UPDATE venue_change SET before = replace(before, \(device), \(deleted)), after = replace(after, \(device), \(deleted))
                    WHERE instr(before, \(device)) > 0 OR instr(after, \(device)) > 0
                    """)
            _ = try DeviceRecord.deleteOne(db, key: seq)
            // Outlier decisions of the check-ins left may change without these as references.
            for venue in venues { try Self.refreshVenue(venue, in: db) }
            return venues
        }
        venues?.forEach(changes.touch)
        return venues != nil
    }

    public func pruneSamples(startedBefore cutoff: Date, at now: Date) async throws -> Int {
        var pruned = 0
        // In batches, so the server's writes wait at most one batch.
        while true {
            let batch = try await pool.write { db -> Int in
                let seqs = try SQLRequest<Int64>(
                    "SELECT seq FROM checkin WHERE started_at < \(cutoff.timeIntervalSince1970) AND samples_pruned_at IS NULL LIMIT 500"
                ).fetchAll(db)
                let deleteEvents = try db.cachedStatement(sql: "DELETE FROM event WHERE checkin_seq = ?")
                let mark = try db.cachedStatement(sql: "UPDATE checkin SET samples_pruned_at = ?, sample_columns = NULL WHERE seq = ?")
                for seq in seqs {
                    try deleteEvents.execute(arguments: [seq])
                    try mark.execute(arguments: [now.timeIntervalSince1970, seq])
                }
                return seqs.count
            }
            pruned += batch
            if batch == 0 { return pruned }
        }
    }
}
