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
            UPDATE venue SET name = \(venue.name), name_folded = \(VenueQuery.folded(venue.name)), latitude = \(venue.latitude), longitude = \(venue.longitude), timezone = \(venue.timezone),
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
}
