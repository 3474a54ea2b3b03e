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
            // One check-in at a time: each holds its samples.
            for seq in try Int64.fetchAll(db, sql: "SELECT seq FROM checkin WHERE samples_pruned_at IS NULL ORDER BY seq") {
                guard let record = try CheckInRecord.fetchOne(db, key: seq) else { continue }
                if clocks[record.venueId] == nil {
                    clocks[record.venueId] = try VenueRecord.fetchOne(db, key: record.venueId).flatMap { VenueClock(timeZoneIdentifier: $0.timezone) }
                }
                guard let clock = clocks[record.venueId] else {
                    differences.append("check-in \(record.id.wireString): its venue \(record.venueId) is missing or has no valid time zone")
                    continue
                }
                let samples: SampleColumns
                do {
                    guard let stored = try record.storedSamples() else {
                        differences.append("check-in \(record.id.wireString): its samples are missing, yet retention has not dropped them")
                        continue
                    }
                    samples = stored
                } catch let error as SampleColumns.Unreadable {
                    differences.append(error.description)
                    continue
                }
                let hours = try Self.contributions(venueID: record.venueId, checkIns: [seq], in: db)
                let stored = DerivedFacts(
                    samples: record.samples, droppedFlags: samples.dropped, droppedSamples: record.droppedSamples,
                    levelDB: record.levelDb, status: record.status, home: record.home,
                    hours: Dictionary(hours.map { ($0.hour, $0.share) }, uniquingKeysWith: { first, _ in first }))
                let analysis = CheckInAnalysis(samples: samples.samples, startedAt: record.startedAt, calibrationDB: record.calibrationDb, clock: clock)
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
        var clocks: [String: VenueClock] = [:]
        // Check-ins whose samples retention dropped keep what was derived from them. One at a
        // time: each holds its samples.
        for seq in try Int64.fetchAll(db, sql: "SELECT seq FROM checkin WHERE samples_pruned_at IS NULL ORDER BY seq") {
            guard var record = try CheckInRecord.fetchOne(db, key: seq) else { continue }
            if clocks[record.venueId] == nil {
                clocks[record.venueId] = try VenueRecord.fetchOne(db, key: record.venueId).flatMap { VenueClock(timeZoneIdentifier: $0.timezone) }
            }
            guard let clock = clocks[record.venueId] else { continue }
            let samples = try record.storedSamples()?.samples ?? []
            let analysis = CheckInAnalysis(samples: samples, startedAt: record.startedAt, calibrationDB: record.calibrationDb, clock: clock)
            record.sampleColumns = SampleColumns(samples: samples, dropped: analysis.dropped).encoded(intervalS: record.intervalS)
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
