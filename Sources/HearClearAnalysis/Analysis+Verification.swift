import Foundation
import HearClearCore

/// A check-in as `verify` reads it, one whose samples retention has not dropped: what it was
/// measured from, and what a store keeps that can be derived again from that.
public struct StoredCheckInFacts: Sendable {
    public var id: String
    public var startedAt: Date
    public var intervalS: Double
    public var calibrationDB: Double
    /// Its samples and their dropped flags as `SampleColumns` encodes them.
    public var sampleColumns: Data?
    public var samples: Int
    public var droppedSamples: Int
    public var levelDB: Double?
    public var status: CheckInStatus
    public var home: LocalHour
    public var hours: [LocalHour: CellSums]

    public init(
        id: String, startedAt: Date, intervalS: Double, calibrationDB: Double, sampleColumns: Data?, samples: Int, droppedSamples: Int, levelDB: Double?,
        status: CheckInStatus, home: LocalHour, hours: [LocalHour: CellSums]
    ) {
        self.id = id
        self.startedAt = startedAt
        self.intervalS = intervalS
        self.calibrationDB = calibrationDB
        self.sampleColumns = sampleColumns
        self.samples = samples
        self.droppedSamples = droppedSamples
        self.levelDB = levelDB
        self.status = status
        self.home = home
        self.hours = hours
    }
}

/// `verify`'s comparisons: what a store holds against what the rules give. One line per
/// difference; none when all agree. The stores fetch, these compare.
extension Analysis {
    /// Ends the difference of a check-in whose samples are damaged or missing: raw data, which no
    /// `rebuild` makes again (it refuses while one is), so `verify` counts them apart.
    public static let lostSamples = "; its samples cannot be made again: restore them from a backup"

    /// A check-in's stored spikes, level, length status, home hour and per-hour sums against the
    /// analysis of its samples in its venue's local time; a blob that is missing or cannot be read is a difference too.
    public static func differences(of stored: StoredCheckInFacts, clock: VenueClock) -> [String] {
        let id = stored.id
        let columns: SampleColumns
        do {
            guard let decoded = try SampleColumns.stored(stored.sampleColumns, intervalS: stored.intervalS, checkIn: id) else {
                return ["check-in \(id): its samples are missing, yet retention has not dropped them" + lostSamples]
            }
            columns = decoded
        } catch {
            return [error.description + lostSamples]
        }
        let analysis = CheckInAnalysis(
            samples: columns.samples, startedAt: stored.startedAt, intervalS: stored.intervalS, calibrationDB: stored.calibrationDB, clock: clock)
        var differences: [String] = []
        if columns.dropped.count != stored.samples {
            differences.append("check-in \(id): \(columns.dropped.count) samples stored, the check-in says \(stored.samples)")
        }
        if analysis.dropped != columns.dropped || analysis.droppedSamples != stored.droppedSamples {
            differences.append("check-in \(id): dropped samples differ from the rules' (silence, then spikes)")
        }
        if !sameLevel(analysis.levelDB, stored.levelDB) {
            differences.append("check-in \(id): level \(stored.levelDB.map { "\($0)" } ?? "null"), recomputed \(analysis.levelDB.map { "\($0)" } ?? "null")")
        }
        if analysis.isTooShort != (stored.status == .tooShort) {
            differences.append("check-in \(id): status \(stored.status.rawValue) but \(analysis.keptSamples) kept samples")
        }
        if analysis.homeHour != stored.home {
            differences.append("check-in \(id): home hour differs from its samples'")
        }
        if stored.hours.keys.sorted() != analysis.hours.keys.sorted()
            || analysis.hours.contains(where: { hour, sums in
                stored.hours[hour].map { !$0.matches(sums) } ?? true
            })
        {
            differences.append("check-in \(id): per-hour sums differ from its samples'")
        }
        return differences
    }

    /// The line for a venue whose time zone no clock can read: its check-ins cannot be placed in local hours.
    public static func difference(venue: String, unreadableTimeZone timezone: String) -> String {
        "venue \(venue): no valid time zone (\(timezone)), so its check-ins were not compared"
    }

    /// The stored statuses of a venue's check-ins against the status rule's.
    public static func differences<Key>(venue: String, candidates: [StatusCandidate<Key>]) -> [String] {
        let wrong = statusChanges(among: candidates)
        return wrong.isEmpty ? [] : ["venue \(venue): \(wrong.count.counted("check-in")) \(wrong.count == 1 ? "has" : "have") a status the rules do not give"]
    }

    /// A venue's stored cells against their sums from scratch.
    public static func differences<Key>(venue: String, cells stored: [LoudnessAggregate], contributions: [HourContribution<Key>]) -> [String] {
        let expected = cells(from: contributions)
        var found: [LocalHour: LoudnessAggregate] = [:]
        for cell in stored { found[cell.cell] = cell }
        return Set(expected.keys).union(found.keys).sorted().compactMap { cell in
            let empty = LoudnessAggregate(weekday: cell.weekday, hour: cell.hour, checkins: 0, samples: 0, energy: 0)
            let cached = found[cell] ?? empty, summed = expected[cell] ?? empty
            guard !cached.matches(summed) else { return nil }
            return "venue \(venue) weekday \(cell.weekday) hour \(cell.hour): stored \(cached.checkins) check-ins/\(cached.samples) samples/energy \(cached.energy)/details \(cached.details.samples) samples, C \(cached.details.c)/spread \(cached.spread.levels.seconds)+\(cached.spread.fastMaxima.seconds) seconds/classified, speech, music \(cached.sounds.values), summed again \(summed.checkins)/\(summed.samples)/\(summed.energy)/\(summed.details.samples), C \(summed.details.c)/\(summed.spread.levels.seconds)+\(summed.spread.fastMaxima.seconds)/\(summed.sounds.values)"
        }
    }

    private static func sameLevel(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): equalWithinRounding(a, b)
        default: false
        }
    }
}
