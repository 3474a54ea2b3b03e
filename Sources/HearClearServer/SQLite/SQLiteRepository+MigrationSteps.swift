import Foundation
import GRDB
import HearClearAnalysis
import HearClearCore

extension SQLiteRepository {
    /// Migration 0008: each check-in's `sample` rows, dropped flags included, into its
    /// `sample_columns` blob. Pruned check-ins have no rows and keep no blob.
    static func moveSamplesIntoColumns(in db: GRDB.Database) throws {
        let rows = try db.makeStatement(
            sql: """
                SELECT t, avg, peak, dropped, fast_max, c_avg, oct_500, oct_1000, oct_2000, oct_4000, speech, music
                FROM sample WHERE checkin_seq = ? ORDER BY t
                """)
        let setColumns = try db.makeStatement(sql: "UPDATE checkin SET sample_columns = ? WHERE seq = ?")
        for checkIn in try Row.fetchAll(db, sql: "SELECT seq, interval_s FROM checkin WHERE samples_pruned_at IS NULL ORDER BY seq") {
            let seq: Int64 = checkIn["seq"]
            var samples: [Sample] = [], dropped: [Bool] = []
            for row in try Row.fetchAll(rows, arguments: [seq]) {
                let details = (row["fast_max"] as Double?).map { fastMax in
                    LevelDetails(fastMax: fastMax, cAvg: row["c_avg"], octaves: LevelDetails.octaveNames.map { row[$0] })
                }
                let classes = (row["speech"] as Int?).flatMap { speech in (row["music"] as Int?).map { SoundClasses(percent: speech, $0) } }
                samples.append(Sample(t: row["t"], avg: row["avg"], peak: row["peak"], details: details, classes: classes))
                dropped.append(row["dropped"])
            }
            try setColumns.execute(arguments: [SampleColumns(samples: samples, dropped: dropped).encoded(intervalS: checkIn["interval_s"]), seq])
        }
    }

    /// Migration 0016: the venues holding a check-in of intervals longer than a second, analysed
    /// and summed again, now that a sample counts its interval's seconds.
    static func weighSecondsAgain(in db: GRDB.Database) throws {
        // 1.5 s and more: the intervals `CheckInAnalysis.seconds(perInterval:)` counts as more than one.
        for venueID in try String.fetchAll(db, sql: "SELECT DISTINCT venue_id FROM checkin WHERE interval_s >= 1.5") {
            try reanalyseVenue(venueID, in: db)
        }
    }

    /// Migration 0017, and `rebuild`: every venue's name folded as a search folds what it looks for.
    static func foldVenueNames(in db: GRDB.Database) throws {
        let update = try db.makeStatement(sql: "UPDATE venue SET name_folded = ? WHERE id = ?")
        for row in try Row.fetchAll(db, sql: "SELECT id, name FROM venue") {
            try update.execute(arguments: [VenueQuery.folded(row["name"]), row["id"] as String])
        }
    }

    /// Migration 0010: every histogram of `checkin_hour` and `loudness` from its `bin:count` text
    /// into the bytes column that replaces it, as the bytes of that release (`gapped`).
    static func moveHistogramsIntoBytes(in db: GRDB.Database) throws {
        try rewriteHistograms(from: ["level_bins", "fast_max_bins"], in: db) { (text: String?) throws(LevelHistogram.Malformed) in
            try LevelHistogram(text: text).gapped
        }
    }

    /// Migration 0012: every histogram's bytes from the gaps between its bins to a count per bin.
    static func makeHistogramsDense(in db: GRDB.Database) throws {
        try rewriteHistograms(from: ["level_histogram", "fast_max_histogram"], in: db) { (bytes: Data?) throws(LevelHistogram.Malformed) in
            try LevelHistogram(gapped: bytes).stored
        }
    }

    /// Each row of `checkin_hour` and `loudness`: its two histograms read from `columns` (levels,
    /// Fast maxima) and written as `rewrite` makes them into the bytes columns, a few thousand
    /// rows at a time. A histogram that cannot be read fails the migration, which then leaves the
    /// file as it was.
    private static func rewriteHistograms<Stored: DatabaseValueConvertible>(
        from columns: [String], in db: GRDB.Database, _ rewrite: (Stored?) throws(LevelHistogram.Malformed) -> Data
    ) throws {
        // Each table with its key, and a key below every stored one to start from.
        let tables: [(name: String, key: [String], before: [DatabaseValue])] = [
            ("checkin_hour", ["checkin_seq", "weekday", "hour"], [(-1).databaseValue, (-1).databaseValue, (-1).databaseValue]),
            ("loudness", ["venue_id", "weekday", "hour"], ["".databaseValue, (-1).databaseValue, (-1).databaseValue]),
        ]
        for table in tables {
            let key = table.key.joined(separator: ", ")
            let next = try db.makeStatement(
                sql: "SELECT \(key), \(columns.joined(separator: ", ")) FROM \(table.name) WHERE (\(key)) > (?, ?, ?) ORDER BY \(key) LIMIT 5000")
            let update = try db.makeStatement(sql: "UPDATE \(table.name) SET level_histogram = ?, fast_max_histogram = ? WHERE (\(key)) = (?, ?, ?)")
            var last = table.before
            while true {
                let rows = try Row.fetchAll(next, arguments: StatementArguments(last))
                guard let final = rows.last else { break }
                for row in rows {
                    let keyValues: [DatabaseValue] = table.key.map { row[$0] }
                    do {
                        let histograms = try columns.map { column in try rewrite(row[column] as Stored?).databaseValue }
                        try update.execute(arguments: StatementArguments(histograms + keyValues))
                    } catch let error as LevelHistogram.Malformed {
                        throw DatabaseError(message: "\(table.name) (\(keyValues.map(\.description).joined(separator: ", "))): \(error.description)")
                    }
                }
                last = table.key.map { final[$0] }
            }
        }
    }
}
