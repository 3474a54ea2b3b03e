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
            let venues = try await connection.query("SELECT id, timezone, name, name_folded FROM venue ORDER BY id", logger: logger)
                .decode((String, String, String, String).self).reduce(into: [(String, String, String, String)]()) { $0.append($1) }
            for (venue, timezone, name, storedFolded) in venues {
                if let folding = VenueQuery.difference(venue: venue, name: name, storedFolded: storedFolded) { differences.append(folding) }
                if let clock = VenueClock(timeZoneIdentifier: timezone) {
                    // One check-in at a time: each holds its samples.
                    let checkIns = try await connection.query(
                        "SELECT seq FROM checkin WHERE venue_id = \(venue) AND samples_pruned_at IS NULL ORDER BY seq", logger: logger
                    ).decode(Int64.self).reduce(into: [Int64]()) { $0.append($1) }
                    for seq in checkIns {
                        guard
                            let (id, startedAt, interval, calibration, blob, samples, dropped, level, status, weekday, hour) = try await connection.query(
                                """
                                SELECT id, started_at, interval_s, calibration_db, sample_columns, samples, dropped_samples, level_db, status, home_weekday, home_hour
                                FROM checkin WHERE seq = \(seq)
                                """, logger: logger
                            ).decode((UUID, Date, Double, Double, Data?, Int, Int, Double?, CheckInStatus, Int, Int).self).first(where: { _ in true })
                        else { continue }
                        let hours = try await Self.contributions(of: [seq], on: connection, logger: logger)
                        let stored = StoredCheckInFacts(
                            id: id.wireString, startedAt: startedAt, intervalS: interval, calibrationDB: calibration, sampleColumns: blob, samples: samples,
                            droppedSamples: dropped, levelDB: level, status: status, home: LocalHour(weekday: weekday, hour: hour),
                            hours: Dictionary(hours.map { ($0.hour, $0.sums) }, uniquingKeysWith: { first, _ in first }))
                        differences += Analysis.differences(of: stored, clock: clock)
                    }
                } else {
                    differences.append(Analysis.difference(venue: venue, unreadableTimeZone: timezone))
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
        try await foldVenueNames(on: connection, logger: logger)
        let venues = try await connection.query("SELECT id, timezone FROM venue ORDER BY id FOR UPDATE", logger: logger)
            .decode((String, String).self).reduce(into: [(String, String)]()) { $0.append($1) }
        for (venue, timezone) in venues {
            let checkIns = try await connection.query(
                "SELECT seq, started_at, interval_s, calibration_db, marked_outlier FROM checkin WHERE venue_id = \(venue) AND samples_pruned_at IS NULL",
                logger: logger
            ).decode((Int64, Date, Double, Double, Bool).self).reduce(into: [(Int64, Date, Double, Double, Bool)]()) { $0.append($1) }
            for (seq, startedAt, interval, calibration, marked) in checkIns {
                guard
                    let again = PreparedCheckIn(
                        samples: try await Self.storedSamples(of: seq, on: connection, logger: logger)?.samples ?? [], startedAt: startedAt,
                        intervalS: interval, calibrationDB: calibration, timezone: timezone)
                else { continue }
                let analysis = again.analysis
                try await connection.query("DELETE FROM checkin_hour WHERE checkin_seq = \(seq)", logger: logger)
                try await Self.storeHours(analysis.hours, checkIn: seq, venueID: venue, on: connection, logger: logger)
                // The outlier rule decides below, for the whole venue.
                try await connection.query(
                    """
                    UPDATE checkin SET samples = \(analysis.dropped.count), dropped_samples = \(analysis.droppedSamples), level_db = \(analysis.levelDB),
                        sample_columns = \(again.sampleColumns), home_weekday = \(analysis.homeHour.weekday), home_hour = \(analysis.homeHour.hour),
                        status = \(again.storedStatus(markedOutlier: marked))
                    WHERE seq = \(seq)
                    """, logger: logger)
            }
            try await Self.refreshVenue(venue, on: connection, logger: logger)
        }
    }
}
