import Foundation
import GRDB
import HearClearCore

extension SQLiteRepository {
    /// Applies a new name, place, time zone or kind to a venue and records the change; a new time
    /// zone places every check-in of the venue in its new local hours.
    static func change(_ record: VenueRecord, to change: VenueUpsert, by actor: VenueActor, at now: Date, in db: GRDB.Database) throws {
        let venue = change.applied(to: record.upsert)
        guard record.upsert != venue else { return }
        var updated = record
        updated.name = venue.name
        updated.latitude = venue.latitude
        updated.longitude = venue.longitude
        updated.timezone = venue.timezone
        updated.kind = venue.kind
        updated.updatedAt = now
        try updated.update(db)
        if record.timezone != venue.timezone {
            // Local weekdays and hours moved: place every check-in again.
            try reanalyseVenue(record.id, in: db)
        }
        try recordChange(of: record.id, .update, by: actor, before: record, after: updated, at: now, in: db)
    }

    static func recordChange(
        of venueID: String, _ action: VenueChangeAction, by actor: VenueActor, before: VenueRecord?, after: VenueRecord?,
        at now: Date, in db: GRDB.Database
    ) throws {
        try VenueChangeRecord(
            venueId: venueID, changedAt: now, actor: actor.recorded, action: action,
            before: before.map { VenueSnapshot($0).json }, after: after.map { VenueSnapshot($0).json }
        ).insert(db)
    }

    // MARK: Operators' changes

    public func editVenue(id: String, _ venue: VenueUpsert, at now: Date) async throws -> Bool {
        let found = try await pool.write { db -> Bool in
            guard let record = try VenueRecord.fetchOne(db, key: id) else { return false }
            try Self.change(record, to: venue, by: .admin, at: now, in: db)
            return true
        }
        changes.touch(id)
        return found
    }

    public func transferVenue(id: String, to device: UUID, at now: Date) async throws -> VenueAdminOutcome {
        try await pool.write { db in
            guard var record = try VenueRecord.fetchOne(db, key: id) else { return .noSuchVenue }
            guard try Self.seq(ofDevice: device, in: db) != nil else { return .noSuchDevice }
            let before = record
            record.ownerDeviceId = device
            record.updatedAt = now
            try record.update(db)
            try Self.recordChange(of: id, .transfer, by: .admin, before: before, after: record, at: now, in: db)
            return .done
        }
    }

    /// Moves every check-in of `id` to `target` (in the target's time zone), deletes `id`, and
    /// keeps `id` leading to `target`; outliers and aggregates of `target` are decided again.
    public func mergeVenue(id: String, into target: String, at now: Date) async throws -> VenueAdminOutcome {
        let outcome = try await pool.write { db -> VenueAdminOutcome in
            guard id != target else { return .sameVenue }
            guard let source = try VenueRecord.fetchOne(db, key: id) else { return .noSuchVenue }
            guard let destination = try VenueRecord.fetchOne(db, key: target) else { return .noSuchTarget }
            let moved = source.timezone == destination.timezone ? [] : try CheckInRecord.filter(CheckInRecord.Columns.venueId == id).fetchAll(db)
            try db.execute(literal: "UPDATE checkin SET venue_id = \(target) WHERE venue_id = \(id)")
            try db.execute(literal: "UPDATE checkin_hour SET venue_id = \(target) WHERE venue_id = \(id)")
            // In another time zone, their local hours are the target's now.
            try Self.reanalyse(moved.map { var record = $0; record.venueId = target; return record }, in: db)
            try LoudnessRecord.filter(LoudnessRecord.Columns.venueId == id).deleteAll(db)
            try db.execute(literal: "UPDATE venue_alias SET venue_id = \(target) WHERE venue_id = \(id)")
            try VenueAliasRecord(id: id, venueId: target).insert(db)
            try Self.recordChange(of: id, .mergedInto, by: .admin, before: source, after: nil, at: now, in: db)
            try Self.recordChange(of: target, .merge, by: .admin, before: source, after: destination, at: now, in: db)
            _ = try VenueRecord.deleteOne(db, key: id)
            try Self.refreshVenue(target, in: db)
            return .done
        }
        changes.touch(id)
        changes.touch(target)
        return outcome
    }
}
