import Foundation
import HearClearAnalysis
import HearClearCore
import Logging
import PostgresNIO

extension PostgresRepository {
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
}
