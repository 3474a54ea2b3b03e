import Foundation
import HearClearAnalysis
import HearClearCore
import Logging
import PostgresNIO

extension PostgresRepository {
    /// Applies a new name, place, time zone or kind to a venue and records the change; a new time
    /// zone places every check-in of the venue in its new local hours.
    static func change(_ stored: PostgresVenueRow, to change: VenueUpsert, by actor: VenueActor, at now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        let venue = change.applied(to: stored.venue)
        guard stored.venue != venue else { return }
        try await connection.query(
            """
            UPDATE venue SET name = \(venue.name), latitude = \(venue.latitude), longitude = \(venue.longitude), timezone = \(venue.timezone),
                kind = \(venue.kind), updated_at = \(now) WHERE id = \(stored.id)
            """, logger: logger)
        if stored.timezone != venue.timezone {
            try await reanalyse(venueID: stored.id, on: connection, logger: logger)
            try await refreshVenue(stored.id, on: connection, logger: logger)
        }
        try await recordChange(
            of: stored.id, .update, by: actor, before: VenueSnapshot(id: stored.id, venue: stored.venue, owner: stored.owner),
            after: VenueSnapshot(id: stored.id, venue: venue, owner: stored.owner), at: now, on: connection, logger: logger)
    }

    static func recordChange(
        of venueID: String, _ action: VenueChangeAction, by actor: VenueActor, before: VenueSnapshot?, after: VenueSnapshot?, at now: Date,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO venue_change (venue_id, changed_at, actor, action, before, after)
            VALUES (\(venueID), \(now), \(actor.recorded), \(action), \(before?.json), \(after?.json))
            """, logger: logger)
    }

    // MARK: Operators' changes

    public func editVenue(id: String, _ venue: VenueUpsert, at now: Date) async throws -> Bool {
        try await transaction { connection, announcement -> Bool in
            guard let stored = try await Self.venueRow(id, locking: true, on: connection, logger: logger) else { return false }
            try await Self.change(stored, to: venue, by: .admin, at: now, on: connection, logger: logger)
            try await announcement.venues([id])
            return true
        }
    }

    public func transferVenue(id: String, to device: UUID, at now: Date) async throws -> VenueAdminOutcome {
        try await transaction { connection in
            guard let stored = try await Self.venueRow(id, locking: true, on: connection, logger: logger) else { return .noSuchVenue }
            guard try await connection.query("SELECT 1 FROM device WHERE id = \(device)", logger: logger).decode(Int.self).first(where: { _ in true }) != nil
            else { return .noSuchDevice }
            try await connection.query("UPDATE venue SET owner_device_id = \(device), updated_at = \(now) WHERE id = \(id)", logger: logger)
            try await Self.recordChange(
                of: id, .transfer, by: .admin, before: VenueSnapshot(id: id, venue: stored.venue, owner: stored.owner),
                after: VenueSnapshot(id: id, venue: stored.venue, owner: device), at: now, on: connection, logger: logger)
            return .done
        }
    }

    /// Moves every check-in of `id` to `target` (in the target's time zone), deletes `id`, and
    /// keeps `id` leading to `target`; statuses and cells of `target` are decided again.
    public func mergeVenue(id: String, into target: String, at now: Date) async throws -> VenueAdminOutcome {
        try await transaction { connection, announcement -> VenueAdminOutcome in
            guard id != target else { return .sameVenue }
            // Both rows locked, in a fixed order so two merges cannot wait on each other.
            let first = try await Self.venueRow(min(id, target), locking: true, on: connection, logger: logger)
            let second = try await Self.venueRow(max(id, target), locking: true, on: connection, logger: logger)
            guard let source = id < target ? first : second else { return .noSuchVenue }
            guard let destination = id < target ? second : first else { return .noSuchTarget }
            try await connection.query("UPDATE checkin SET venue_id = \(target) WHERE venue_id = \(id)", logger: logger)
            try await connection.query("UPDATE checkin_hour SET venue_id = \(target) WHERE venue_id = \(id)", logger: logger)
            if source.timezone != destination.timezone {
                try await Self.reanalyse(venueID: target, on: connection, logger: logger)
            }
            try await connection.query("DELETE FROM loudness WHERE venue_id = \(id)", logger: logger)
            try await connection.query("UPDATE venue_alias SET venue_id = \(target) WHERE venue_id = \(id)", logger: logger)
            try await connection.query("INSERT INTO venue_alias (id, venue_id) VALUES (\(id), \(target))", logger: logger)
            let merged = VenueSnapshot(id: id, venue: source.venue, owner: source.owner)
            try await Self.recordChange(of: id, .mergedInto, by: .admin, before: merged, after: nil, at: now, on: connection, logger: logger)
            try await Self.recordChange(
                of: target, .merge, by: .admin, before: merged, after: VenueSnapshot(id: target, venue: destination.venue, owner: destination.owner),
                at: now, on: connection, logger: logger)
            try await connection.query("DELETE FROM venue WHERE id = \(id)", logger: logger)
            try await Self.refreshVenue(target, on: connection, logger: logger)
            try await announcement.venues([id, target])
            return .done
        }
    }

    // MARK: Privacy

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
