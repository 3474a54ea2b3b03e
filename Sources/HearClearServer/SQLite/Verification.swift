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
            var clocks: [String: VenueClock] = [:]
            for record in try CheckInRecord.filter(sql: "samples_pruned_at IS NULL").order(Column("seq")).fetchAll(db) {
                guard let seq = record.seq else { continue }
                if clocks[record.venueId] == nil {
                    clocks[record.venueId] = try VenueRecord.fetchOne(db, key: record.venueId).flatMap { VenueClock(timeZoneIdentifier: $0.timezone) }
                }
                guard let clock = clocks[record.venueId] else {
                    differences.append("check-in \(record.id.wireString): its venue \(record.venueId) is missing or has no valid time zone")
                    continue
                }
                let samples = try Self.samples(of: seq, in: db)
                let hours = try Self.contributions(venueID: record.venueId, checkIns: [seq], in: db)
                let stored = DerivedFacts(
                    samples: record.samples, droppedFlags: samples.map(\.dropped), droppedSamples: record.droppedSamples,
                    levelDB: record.levelDb, status: record.status, home: record.home,
                    hours: Dictionary(hours.map { ($0.hour, $0.share) }, uniquingKeysWith: { first, _ in first }))
                let analysis = CheckInAnalysis(samples: samples.map(\.sample), startedAt: record.startedAt, calibrationDB: record.calibrationDb, clock: clock)
                differences += Analysis.differences(checkIn: record.id.wireString, stored: stored, analysis: analysis)
            }
            for venue in try String.fetchAll(db, sql: "SELECT id FROM venue ORDER BY id") {
                differences += Analysis.differences(venue: venue, candidates: try Self.statusCandidates(venueID: venue, in: db))
                differences += Analysis.differences(
                    venue: venue, cells: try LoudnessRecord.filter(LoudnessRecord.Columns.venueId == venue).fetchAll(db).map(\.aggregate),
                    contributions: try Self.contributions(venueID: venue, in: db))
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
        let setDropped = try db.cachedStatement(sql: "UPDATE sample SET dropped = ? WHERE checkin_seq = ? AND t = ?")
        var clocks: [String: VenueClock] = [:]
        // Check-ins whose samples retention dropped keep what was derived from them.
        for var record in try CheckInRecord.filter(sql: "samples_pruned_at IS NULL").fetchAll(db) {
            guard let seq = record.seq else { continue }
            if clocks[record.venueId] == nil {
                clocks[record.venueId] = try VenueRecord.fetchOne(db, key: record.venueId).flatMap { VenueClock(timeZoneIdentifier: $0.timezone) }
            }
            guard let clock = clocks[record.venueId] else { continue }
            let samples = try Self.samples(of: seq, in: db).map(\.sample)
            let analysis = CheckInAnalysis(samples: samples, startedAt: record.startedAt, calibrationDB: record.calibrationDb, clock: clock)
            for (index, sample) in samples.enumerated() {
                try setDropped.execute(arguments: [analysis.dropped[index], seq, sample.t])
            }
            try db.execute(literal: "DELETE FROM checkin_hour WHERE checkin_seq = \(seq)")
            try Self.storeHours(analysis.hours, checkIn: seq, venueID: record.venueId, in: db)
            record.samples = samples.count
            record.droppedSamples = analysis.droppedSamples
            record.levelDb = analysis.levelDB
            record.homeWeekday = analysis.homeHour.weekday
            record.homeHour = analysis.homeHour.hour
            // The outlier rule decides below, for the whole venue.
            record.status = Analysis.status(keptSamples: analysis.keptSamples, markedOutlier: record.markedOutlier, verdict: nil)
            try record.update(db)
        }
        for venue in try String.fetchAll(db, sql: "SELECT id FROM venue") {
            try Self.refreshVenue(venue, in: db)
        }
    }
}
