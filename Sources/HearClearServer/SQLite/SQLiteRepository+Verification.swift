import Foundation
import GRDB
import HearClearAnalysis
import HearClearCore

extension SQLiteRepository {
    /// Derives everything again from the raw rows (samples, check-ins, devices, venues) and
    /// compares it with what is stored: each check-in's spikes, level, home hour and per-hour sums
    /// (for check-ins whose samples retention has not dropped), every status, and every cell.
    /// One line per difference; none when all agree. The comparisons are `Analysis`'s.
    public func verify() async throws -> [String] {
        try await pool.read { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            var differences = integrity == ["ok"] ? [] : integrity.map { "integrity: \($0)" }
            for venue in try VenueRecord.order(Column("id")).fetchAll(db) {
                if let folding = VenueQuery.difference(venue: venue.id, name: venue.name, storedFolded: venue.nameFolded) { differences.append(folding) }
                if let clock = VenueClock(timeZoneIdentifier: venue.timezone) {
                    // One check-in at a time: each holds its samples.
                    let checkIns = try Int64.fetchAll(
                        db, sql: "SELECT seq FROM checkin WHERE venue_id = ? AND samples_pruned_at IS NULL ORDER BY seq", arguments: [venue.id])
                    for seq in checkIns {
                        guard let record = try CheckInRecord.fetchOne(db, key: seq) else { continue }
                        let hours = try Self.contributions(venueID: venue.id, checkIns: [seq], in: db)
                        let stored = StoredCheckInFacts(
                            id: record.id.wireString, startedAt: record.startedAt, intervalS: record.intervalS, calibrationDB: record.calibrationDb,
                            sampleColumns: record.sampleColumns, samples: record.samples, droppedSamples: record.droppedSamples, levelDB: record.levelDb,
                            status: record.status, home: record.home, hours: Dictionary(hours.map { ($0.hour, $0.sums) }, uniquingKeysWith: { first, _ in first }))
                        differences += Analysis.differences(of: stored, clock: clock)
                    }
                } else {
                    differences.append(Analysis.difference(venue: venue.id, unreadableTimeZone: venue.timezone))
                }
                differences += Analysis.differences(venue: venue.id, candidates: try Self.statusCandidates(venueID: venue.id, in: db))
                differences += Analysis.differences(
                    venue: venue.id, cells: try LoudnessRecord.filter(LoudnessRecord.Columns.venueId == venue.id).fetchAll(db).map(\.aggregate),
                    contributions: try Self.contributions(venueID: venue.id, in: db))
            }
            return differences
        }
    }

    /// Derives everything again from the raw rows, in one transaction: the repair for what `verify` reports.
    public func rebuild() async throws {
        try await pool.write { db in try Self.deriveAgain(in: db) }
        changes.touchAll()
    }

    /// What `rebuild` does, inside a transaction of the caller's (also a migration's that adds a derived column).
    static func deriveAgain(in db: GRDB.Database) throws {
        try foldVenueNames(in: db)
        // Check-ins whose samples retention dropped keep what was derived from them.
        for venue in try VenueRecord.fetchAll(db) {
            // One at a time: each holds its samples.
            for seq in try Int64.fetchAll(db, sql: "SELECT seq FROM checkin WHERE venue_id = ? AND samples_pruned_at IS NULL ORDER BY seq", arguments: [venue.id]) {
                guard var record = try CheckInRecord.fetchOne(db, key: seq),
                    let again = PreparedCheckIn(
                        samples: try record.storedSamples()?.samples ?? [], startedAt: record.startedAt, intervalS: record.intervalS,
                        calibrationDB: record.calibrationDb, timezone: venue.timezone)
                else { continue }
                let analysis = again.analysis
                try db.execute(literal: "DELETE FROM checkin_hour WHERE checkin_seq = \(seq)")
                try Self.storeHours(analysis.hours, checkIn: seq, venueID: record.venueId, in: db)
                record.sampleColumns = again.sampleColumns
                record.samples = analysis.dropped.count
                record.droppedSamples = analysis.droppedSamples
                record.levelDb = analysis.levelDB
                record.homeWeekday = analysis.homeHour.weekday
                record.homeHour = analysis.homeHour.hour
                // The outlier rule decides below, for the whole venue.
                record.status = again.storedStatus(markedOutlier: record.markedOutlier)
                try record.update(db)
            }
        }
        for venue in try String.fetchAll(db, sql: "SELECT id FROM venue") {
            try Self.refreshVenue(venue, in: db)
        }
    }
}
