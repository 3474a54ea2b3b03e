import Foundation
import GRDB

extension SQLiteRepository {
    /// Compares every cached aggregate with its recomputation from the check-ins; one line per
    /// difference, none when the cache is right.
    public func aggregateMismatches() async throws -> [String] {
        try await pool.read { db in
            var mismatches: [String] = []
            let venueIDs = try String.fetchAll(db, sql: "SELECT id FROM venue ORDER BY id")
            for venueID in venueIDs {
                let cached = try LoudnessRecord.filter(LoudnessRecord.Columns.venueId == venueID).fetchAll(db)
                var cachedBySpan: [LocalHour: LoudnessAggregate] = [:]
                for record in cached { cachedBySpan[LocalHour(weekday: record.weekday, hour: record.hour)] = record.aggregate }
                for weekday in 0...LoudnessAggregate.everyWeekday {
                    for hour in 0...LoudnessAggregate.everyHour {
                        let span = LocalHour(weekday: weekday, hour: hour)
                        let expected = try Self.computeAggregate(venueID: venueID, span: span, in: db)
                        let found = cachedBySpan[span] ?? LoudnessAggregate(weekday: weekday, hour: hour, checkins: 0, samples: 0, energy: 0)
                        let sameEnergy = abs(found.energy - expected.energy) <= 1e-9 * max(abs(expected.energy), 1)
                        if found.checkins != expected.checkins || found.samples != expected.samples || !sameEnergy {
                            mismatches.append(
                                "venue \(venueID) weekday \(weekday) hour \(hour): cached \(found.checkins) check-ins/\(found.samples) samples/energy \(found.energy), expected \(expected.checkins)/\(expected.samples)/\(expected.energy)")
                        }
                    }
                }
            }
            return mismatches
        }
    }
}
