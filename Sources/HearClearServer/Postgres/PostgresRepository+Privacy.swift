import Foundation
import HearClearCore
import Logging
import PostgresNIO

extension PostgresRepository {
    public func deleteDevice(_ id: UUID) async throws -> Bool {
        try await transaction { connection, announcement -> Bool in
            guard try await connection.query("SELECT 1 FROM device WHERE id = \(id) FOR UPDATE", logger: logger).decode(Int.self).first(where: { _ in true }) != nil
            else { return false }
            let venues = try await connection.query("SELECT DISTINCT venue_id FROM checkin WHERE device_id = \(id) ORDER BY venue_id", logger: logger)
                .decode(String.self).reduce(into: [String]()) { $0.append($1) }
            for venue in venues { _ = try await Self.venueRow(venue, locking: true, on: connection, logger: logger) }
            // Samples, events and per-hour sums go with their check-ins (ON DELETE CASCADE).
            try await connection.query("DELETE FROM checkin WHERE device_id = \(id)", logger: logger)
            try await connection.query("UPDATE venue SET owner_device_id = NULL WHERE owner_device_id = \(id)", logger: logger)
            let deleted = VenueActor.deletedDevice, wire = id.wireString
            try await connection.query("UPDATE venue_change SET actor = \(deleted) WHERE actor = \(VenueActor.device(id).recorded)", logger: logger)
            try await connection.query(
                """
                UPDATE venue_change SET before = replace(before, \(wire), \(deleted)), after = replace(after, \(wire), \(deleted))
                WHERE strpos(before, \(wire)) > 0 OR strpos(after, \(wire)) > 0
                """, logger: logger)
            try await connection.query("DELETE FROM device WHERE id = \(id)", logger: logger)
            // Statuses of the check-ins left may change without these as references.
            for venue in venues { try await Self.refreshVenue(venue, on: connection, logger: logger) }
            try await announcement.venues(venues)
            return true
        }
    }

    public func pruneSamples(startedBefore cutoff: Date, at now: Date) async throws -> Int {
        var pruned = 0
        // In batches, so the server's writes wait at most one batch.
        while true {
            let batch = try await transaction { connection -> Int in
                let seqs = try await connection.query(
                    "SELECT seq FROM checkin WHERE started_at < \(cutoff) AND samples_pruned_at IS NULL ORDER BY seq LIMIT 500", logger: logger
                ).decode(Int64.self).reduce(into: [Int64]()) { $0.append($1) }
                guard !seqs.isEmpty else { return 0 }
                try await connection.query("DELETE FROM event WHERE checkin_seq = ANY(\(seqs))", logger: logger)
                try await connection.query("UPDATE checkin SET samples_pruned_at = \(now), sample_columns = NULL WHERE seq = ANY(\(seqs))", logger: logger)
                return seqs.count
            }
            pruned += batch
            if batch == 0 { return pruned }
        }
    }
}
