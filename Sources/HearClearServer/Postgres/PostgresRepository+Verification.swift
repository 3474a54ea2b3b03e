import Foundation
import HearClearAnalysis
import HearClearCore
import Logging
import PostgresNIO

extension PostgresRepository {
    /// What the SQLite store's `verify` does, on PostgreSQL: every derived fact against the rules,
    /// compared by `Analysis`. Read in one REPEATABLE READ transaction, so concurrent writes cannot
    /// show as differences.
    public func verify() async throws -> [String] {
        try await snapshot { [logger] connection in
            var differences: [String] = []
            let venues = try await connection.query("SELECT id, timezone FROM venue ORDER BY id", logger: logger)
                .decode((String, String).self).reduce(into: [(String, String)]()) { $0.append($1) }
            for (venue, timezone) in venues {
                let checkIns = try await connection.query(
                    """
                    SELECT seq, id, started_at, calibration_db, samples, dropped_samples, level_db, status, home_weekday, home_hour
                    FROM checkin WHERE venue_id = \(venue) AND samples_pruned_at IS NULL ORDER BY seq
                    """, logger: logger
                ).decode((Int64, UUID, Date, Double, Int, Int, Double?, CheckInStatus, Int, Int).self).reduce(into: [(Int64, UUID, Date, Double, Int, Int, Double?, CheckInStatus, Int, Int)]()) { $0.append($1) }
                if let clock = VenueClock(timeZoneIdentifier: timezone) {
                    for (seq, id, startedAt, calibration, samples, dropped, level, status, weekday, hour) in checkIns {
                        let columns: SampleColumns
                        do {
                            guard let stored = try await Self.storedSamples(of: seq, on: connection, logger: logger) else {
                                differences.append("check-in \(id.wireString): its samples are missing, yet retention has not dropped them")
                                continue
                            }
                            columns = stored
                        } catch let error as SampleColumns.Unreadable {
                            differences.append(error.description)
                            continue
                        }
                        let hours = try await Self.contributions(venueID: venue, checkIns: [seq], on: connection, logger: logger)
                        let stored = DerivedFacts(
                            samples: samples, droppedFlags: columns.dropped, droppedSamples: dropped, levelDB: level, status: status,
                            home: LocalHour(weekday: weekday, hour: hour), hours: Dictionary(hours.map { ($0.hour, $0.share) }, uniquingKeysWith: { first, _ in first }))
                        let analysis = CheckInAnalysis(samples: columns.samples, startedAt: startedAt, calibrationDB: calibration, clock: clock)
                        differences += Analysis.differences(checkIn: id.wireString, stored: stored, analysis: analysis)
                    }
                } else {
                    differences.append("venue \(venue): no valid time zone (\(timezone))")
                }
                differences += Analysis.differences(venue: venue, candidates: try await Self.statusCandidates(venueID: venue, on: connection, logger: logger))
                differences += Analysis.differences(
                    venue: venue, cells: try await Self.cells(of: venue, on: connection, logger: logger),
                    contributions: try await Self.contributions(venueID: venue, on: connection, logger: logger))
            }
            return differences
        }
    }

    /// Derives everything again from the raw rows, in one transaction: the repair for what `verify` reports.
    public func rebuild() async throws {
        try await transaction { [logger] connection, announcement in
            try await Self.deriveAgain(on: connection, logger: logger)
            try await announcement.everyVenue()
        }
    }

    /// What `rebuild` does, inside a transaction of the caller's (also after a migration that adds a derived column).
    static func deriveAgain(on connection: PostgresConnection, logger: Logger) async throws {
        let venues = try await connection.query("SELECT id, timezone FROM venue ORDER BY id FOR UPDATE", logger: logger)
            .decode((String, String).self).reduce(into: [(String, String)]()) { $0.append($1) }
        for (venue, timezone) in venues {
            guard let clock = VenueClock(timeZoneIdentifier: timezone) else { continue }
            let checkIns = try await connection.query(
                "SELECT seq, started_at, interval_s, calibration_db, marked_outlier FROM checkin WHERE venue_id = \(venue) AND samples_pruned_at IS NULL",
                logger: logger
            ).decode((Int64, Date, Double, Double, Bool).self).reduce(into: [(Int64, Date, Double, Double, Bool)]()) { $0.append($1) }
            for (seq, startedAt, interval, calibration, marked) in checkIns {
                let samples = try await Self.storedSamples(of: seq, on: connection, logger: logger)?.samples ?? []
                let analysis = CheckInAnalysis(samples: samples, startedAt: startedAt, calibrationDB: calibration, clock: clock)
                try await connection.query("DELETE FROM checkin_hour WHERE checkin_seq = \(seq)", logger: logger)
                try await Self.storeHours(analysis.hours, checkIn: seq, venueID: venue, on: connection, logger: logger)
                // The outlier rule decides below, for the whole venue.
                let status = Analysis.status(keptSamples: analysis.keptSamples, markedOutlier: marked, verdict: nil)
                try await connection.query(
                    """
                    UPDATE checkin SET samples = \(samples.count), dropped_samples = \(analysis.droppedSamples), level_db = \(analysis.levelDB),
                        sample_columns = \(SampleColumns(samples: samples, dropped: analysis.dropped).encoded(intervalS: interval)),
                        home_weekday = \(analysis.homeHour.weekday), home_hour = \(analysis.homeHour.hour), status = \(status)
                    WHERE seq = \(seq)
                    """, logger: logger)
            }
            try await Self.refreshVenue(venue, on: connection, logger: logger)
        }
    }
}
