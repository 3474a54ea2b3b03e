import Foundation
import GRDB
import HearClearCore

extension SQLiteRepository {
    /// Recomputes everything derived from the raw rows (samples, check-ins, devices, venues) and
    /// compares it with what is stored: each check-in's spikes, level, home hour and per-hour sums
    /// (for check-ins whose samples retention has not dropped), every outlier decision, and every
    /// cached aggregate. One line per difference; none when all agree.
    public func verify() async throws -> [String] {
        try await pool.read { db in
            var differences = try Self.checkInDifferences(db)
            differences += try Self.decisionDifferences(db)
            differences += try Self.aggregateDifferences(db)
            return differences
        }
    }

    /// Only the cached aggregates against their recomputation from `checkin_hour`.
    public func aggregateMismatches() async throws -> [String] {
        try await pool.read { db in try Self.aggregateDifferences(db) }
    }

    /// Derives everything again from the raw rows, in one transaction: the repair for what `verify` reports.
    public func rebuild() async throws {
        try await pool.write { db in
            let setDropped = try db.cachedStatement(sql: "UPDATE sample SET dropped = ? WHERE checkin_seq = ? AND t = ?")
            // Check-ins whose samples retention dropped keep what was derived from them.
            for var record in try CheckInRecord.filter(sql: "samples_pruned_at IS NULL").fetchAll(db) {
                let samples = try SQLRequest<Row>("SELECT t, avg FROM sample WHERE checkin_seq = \(record.seq!) ORDER BY t").fetchAll(db)
                let spikes = Analysis.spikes(in: samples.map { $0["avg"] })
                for (index, sample) in samples.enumerated() {
                    try setDropped.execute(arguments: [spikes[index], record.seq!, sample["t"] as Double])
                }
                record.samples = samples.count
                record.droppedSamples = spikes.filter { $0 }.count
                if record.samples - record.droppedSamples < Analysis.minimumKeptSamples {
                    record.status = CheckInStatus.tooShort.rawValue
                } else if record.markedOutlier {
                    record.status = CheckInStatus.outlier.rawValue
                } else if record.status == CheckInStatus.tooShort.rawValue {
                    record.status = CheckInStatus.accepted.rawValue  // the outlier rule decides below
                }
                try record.update(db)
            }
            try Self.reanalyse(try CheckInRecord.fetchAll(db), in: db)
            for venue in try String.fetchAll(db, sql: "SELECT id FROM venue") {
                try Self.refreshVenue(venue, in: db)
            }
        }
        changes.touchAll()
    }

    private static func checkInDifferences(_ db: GRDB.Database) throws -> [String] {
        var differences: [String] = []
        var clocks: [String: VenueClock] = [:]
        for record in try CheckInRecord.filter(sql: "samples_pruned_at IS NULL").fetchAll(db) {
            let seq = record.seq!
            if clocks[record.venueId] == nil {
                clocks[record.venueId] = try VenueRecord.fetchOne(db, key: record.venueId).flatMap { VenueClock(timeZoneIdentifier: $0.timezone) }
            }
            guard let clock = clocks[record.venueId] else {
                differences.append("check-in \(record.id): its venue \(record.venueId) is missing or has no valid time zone")
                continue
            }
            let rows = try SQLRequest<Row>("SELECT t, avg, peak, dropped FROM sample WHERE checkin_seq = \(seq) ORDER BY t").fetchAll(db)
            let samples = rows.map { Sample(t: $0["t"], avg: $0["avg"], peak: $0["peak"]) }
            let storedDropped = rows.map { $0["dropped"] as Bool }
            let analysis = CheckInAnalysis(
                samples: samples, startedAt: record.startedAt, intervalS: record.intervalS, venueID: record.venueId,
                calibrationDB: record.calibrationDb, clock: clock)
            if samples.count != record.samples { differences.append("check-in \(record.id): \(samples.count) sample rows, the check-in says \(record.samples)") }
            if analysis.dropped != storedDropped || analysis.dropped.filter({ $0 }).count != record.droppedSamples {
                differences.append("check-in \(record.id): dropped samples differ from the spike filter's")
            }
            if !same(analysis.levelDB, record.levelDb) {
                differences.append("check-in \(record.id): level \(record.levelDb.map { "\($0)" } ?? "null"), recomputed \(analysis.levelDB.map { "\($0)" } ?? "null")")
            }
            if analysis.isTooShort != (record.status == CheckInStatus.tooShort.rawValue) {
                differences.append("check-in \(record.id): status \(record.status) but \(analysis.keptSamples) kept samples")
            }
            if analysis.homeHour != LocalHour(weekday: record.homeWeekday, hour: record.homeHour) {
                differences.append("check-in \(record.id): home hour differs from its samples'")
            }
            let hours = try SQLRequest<Row>("SELECT weekday, hour, samples, energy FROM checkin_hour WHERE checkin_seq = \(seq)").fetchAll(db)
            var stored: [LocalHour: CheckInAnalysis.HourShare] = [:]
            for row in hours { stored[LocalHour(weekday: row["weekday"], hour: row["hour"])] = .init(samples: row["samples"], energy: row["energy"]) }
            if stored.keys.sorted() != analysis.hours.keys.sorted()
                || analysis.hours.contains(where: { stored[$0.key]?.samples != $0.value.samples || !same(stored[$0.key]?.energy, $0.value.energy) })
            {
                differences.append("check-in \(record.id): per-hour sums differ from its samples'")
            }
        }
        return differences
    }

    /// Applies the outlier rule to every venue and home hour without writing, and compares.
    private static func decisionDifferences(_ db: GRDB.Database) throws -> [String] {
        var differences: [String] = []
        let groups = try Row.fetchAll(db, sql: "SELECT DISTINCT venue_id, home_hour FROM checkin")
        for group in groups {
            let venue: String = group["venue_id"], hour: Int = group["home_hour"]
            let wrong = try outlierDecisions(venueID: venue, hour: hour, in: db).filter { $0.stored != $0.decided }
            if !wrong.isEmpty {
                differences.append("venue \(venue) hour \(hour): \(wrong.count) check-in(s) have an outlier status the rule does not give")
            }
        }
        return differences
    }

    private static func aggregateDifferences(_ db: GRDB.Database) throws -> [String] {
        var differences: [String] = []
        for venueID in try String.fetchAll(db, sql: "SELECT id FROM venue ORDER BY id") {
            var cached: [LocalHour: LoudnessAggregate] = [:]
            for record in try LoudnessRecord.filter(LoudnessRecord.Columns.venueId == venueID).fetchAll(db) {
                cached[LocalHour(weekday: record.weekday, hour: record.hour)] = record.aggregate
            }
            for weekday in 0...LoudnessAggregate.everyWeekday {
                for hour in 0...LoudnessAggregate.everyHour {
                    let span = LocalHour(weekday: weekday, hour: hour)
                    let expected = try computeAggregate(venueID: venueID, span: span, in: db)
                    let found = cached[span] ?? LoudnessAggregate(weekday: weekday, hour: hour, checkins: 0, samples: 0, energy: 0)
                    if found.checkins != expected.checkins || found.samples != expected.samples || !same(found.energy, expected.energy) {
                        differences.append(
                            "venue \(venueID) weekday \(weekday) hour \(hour): cached \(found.checkins) check-ins/\(found.samples) samples/energy \(found.energy), recomputed \(expected.checkins)/\(expected.samples)/\(expected.energy)")
                    }
                }
            }
        }
        return differences
    }

    /// Equal within floating-point summation error.
    private static func same(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1)
        default: false
        }
    }
}
