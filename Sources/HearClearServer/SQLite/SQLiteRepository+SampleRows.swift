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
}
