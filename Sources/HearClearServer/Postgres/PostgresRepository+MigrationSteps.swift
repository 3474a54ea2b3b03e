import Foundation
import HearClearAnalysis
import HearClearCore
import Logging
import PostgresNIO

extension PostgresRepository {
    /// Migration 0015: the venues holding a check-in of intervals longer than a second, analysed
    /// and summed again, now that a sample counts its interval's seconds.
    static func weighSecondsAgain(on connection: PostgresConnection, logger: Logger) async throws {
        var venues: [String] = []
        // 1.5 s and more: the intervals `CheckInAnalysis.seconds(perInterval:)` counts as more than one.
        for try await venueID in try await connection.query("SELECT DISTINCT venue_id FROM checkin WHERE interval_s >= 1.5", logger: logger).decode(String.self) {
            venues.append(venueID)
        }
        for venueID in venues {
            try await reanalyse(venueID: venueID, on: connection, logger: logger)
            try await refreshVenue(venueID, on: connection, logger: logger)
        }
    }

    /// Migration 0016, and `rebuild`: every venue's name folded as a search folds what it looks for, in one statement.
    static func foldVenueNames(on connection: PostgresConnection, logger: Logger) async throws {
        let venues = try await connection.query("SELECT id, name FROM venue", logger: logger).decode((String, String).self)
            .reduce(into: [(id: String, name: String)]()) { $0.append(($1.0, $1.1)) }
        try await connection.query(
            """
            UPDATE venue SET name_folded = folded.name
            FROM unnest(\(venues.map(\.id)), \(venues.map { VenueQuery.folded($0.name) })) AS folded(id, name) WHERE venue.id = folded.id
            """, logger: logger)
    }

    /// Migration 0007: each check-in's `sample` rows, dropped flags included, into its
    /// `sample_columns` blob, inside the migration's transaction. Pruned check-ins have no rows
    /// and keep no blob.
    static func moveSamplesIntoColumns(on connection: PostgresConnection, logger: Logger) async throws {
        let checkIns = try await connection.query(
            "SELECT seq, interval_s FROM checkin WHERE samples_pruned_at IS NULL ORDER BY seq", logger: logger
        ).decode((Int64, Double).self).reduce(into: [(Int64, Double)]()) { $0.append($1) }
        for (seq, interval) in checkIns {
            var samples: [Sample] = [], dropped: [Bool] = []
            for try await (t, avg, peak, isDropped, fastMax, c, o500, o1000, o2000, o4000, speech, music) in try await connection.query(
                """
                SELECT t, avg, peak, dropped, fast_max, c_avg, oct_500, oct_1000, oct_2000, oct_4000, speech, music
                FROM sample WHERE checkin_seq = \(seq) ORDER BY t
                """, logger: logger
            ).decode((Double, Double, Double, Bool, Double?, Double?, Double?, Double?, Double?, Double?, Int?, Int?).self) {
                let octaves = [o500, o1000, o2000, o4000].compactMap { $0 }
                let details = fastMax.flatMap { fastMax in c.map { LevelDetails(fastMax: fastMax, cAvg: $0, octaves: octaves) } }
                let classes = speech.flatMap { speech in music.map { SoundClasses(percent: speech, $0) } }
                samples.append(Sample(t: t, avg: avg, peak: peak, details: octaves.count == 4 ? details : nil, classes: classes))
                dropped.append(isDropped)
            }
            let blob = SampleColumns(samples: samples, dropped: dropped).encoded(intervalS: interval)
            try await connection.query("UPDATE checkin SET sample_columns = \(blob) WHERE seq = \(seq)", logger: logger)
        }
    }

    /// Migration 0009: every histogram of `checkin_hour` and `loudness` from its `bin:count` text
    /// into the bytes column that replaces it, as the bytes of that release (`gapped`).
    static func moveHistogramsIntoBytes(on connection: PostgresConnection, logger: Logger) async throws {
        try await rewriteHistograms(from: ("level_bins", "fast_max_bins"), on: connection, logger: logger) { (text: String?) throws(LevelHistogram.Malformed) in
            try LevelHistogram(text: text).gapped
        }
    }

    /// Migration 0011: every histogram's bytes from the gaps between its bins to a count per bin.
    static func makeHistogramsDense(on connection: PostgresConnection, logger: Logger) async throws {
        try await rewriteHistograms(from: ("level_histogram", "fast_max_histogram"), on: connection, logger: logger) {
            (bytes: Data?) throws(LevelHistogram.Malformed) in try LevelHistogram(gapped: bytes).stored
        }
    }

    /// Each row of `checkin_hour` and `loudness`: its two histograms read from `columns` (levels,
    /// Fast maxima) and written as `rewrite` makes them into the bytes columns, a few thousand rows
    /// at a time, inside the migration's transaction. A histogram that cannot be read fails the
    /// migration, which then changes nothing.
    private static func rewriteHistograms<Stored: PostgresDecodable & Sendable>(
        from columns: (levels: String, fastMaxima: String), on connection: PostgresConnection, logger: Logger,
        _ rewrite: (Stored?) throws(LevelHistogram.Malformed) -> Data
    ) async throws where Stored._DecodableType == Stored {
        // Both histograms of a row, or what names the row when one cannot be read.
        func histograms(_ levels: Stored?, _ fastMaxima: Stored?, of row: String) throws -> [ByteBuffer] {
            do {
                return [ByteBuffer(bytes: try rewrite(levels)), ByteBuffer(bytes: try rewrite(fastMaxima))]
            } catch {
                throw LevelHistogram.Malformed(description: "\(row): \(error.description)")
            }
        }
        let read = "\(columns.levels), \(columns.fastMaxima)"
        // checkin_hour, keyed by its check-in: a few thousand check-ins' hours at a time.
        var lastCheckIn: Int64 = -1
        while true {
            var rows: [(seq: Int64, weekday: Int, hour: Int, histograms: [ByteBuffer])] = []
            for try await (seq, weekday, hour, levels, fastMaxima) in try await connection.query(
                """
                SELECT checkin_seq, weekday, hour, \(unescaped: read) FROM checkin_hour
                WHERE checkin_seq IN (SELECT DISTINCT checkin_seq FROM checkin_hour WHERE checkin_seq > \(lastCheckIn) ORDER BY checkin_seq LIMIT 2000)
                """, logger: logger
            ).decode((Int64, Int, Int, Stored?, Stored?).self) {
                rows.append((seq, weekday, hour, try histograms(levels, fastMaxima, of: "checkin_hour (\(seq), \(weekday), \(hour))")))
            }
            guard let last = rows.map(\.seq).max() else { break }
            try await connection.query(
                """
                UPDATE checkin_hour h SET level_histogram = u.levels, fast_max_histogram = u.fast_maxima
                FROM unnest(\(rows.map(\.seq)), \(rows.map(\.weekday)), \(rows.map(\.hour)), \(rows.map { $0.histograms[0] }),
                    \(rows.map { $0.histograms[1] })) AS u(seq, weekday, hour, levels, fast_maxima)
                WHERE h.checkin_seq = u.seq AND h.weekday = u.weekday AND h.hour = u.hour
                """, logger: logger)
            lastCheckIn = last
        }
        // loudness, a venue's cells at a time.
        let venues = try await connection.query("SELECT DISTINCT venue_id FROM loudness", logger: logger)
            .decode(String.self).reduce(into: [String]()) { $0.append($1) }
        for venue in venues {
            var cells: [(weekday: Int, hour: Int, histograms: [ByteBuffer])] = []
            for try await (weekday, hour, levels, fastMaxima) in try await connection.query(
                "SELECT weekday, hour, \(unescaped: read) FROM loudness WHERE venue_id = \(venue)", logger: logger
            ).decode((Int, Int, Stored?, Stored?).self) {
                cells.append((weekday, hour, try histograms(levels, fastMaxima, of: "loudness (\(venue), \(weekday), \(hour))")))
            }
            try await connection.query(
                """
                UPDATE loudness l SET level_histogram = u.levels, fast_max_histogram = u.fast_maxima
                FROM unnest(\(cells.map(\.weekday)), \(cells.map(\.hour)), \(cells.map { $0.histograms[0] }),
                    \(cells.map { $0.histograms[1] })) AS u(weekday, hour, levels, fast_maxima)
                WHERE l.venue_id = \(venue) AND l.weekday = u.weekday AND l.hour = u.hour
                """, logger: logger)
        }
    }
}
