import Foundation
import HearClearCore

/// What a store keeps about a check-in that can be derived again from its samples.
public struct DerivedFacts: Sendable {
    public var samples: Int
    /// Per sample, in time order, the stored `dropped` flag.
    public var droppedFlags: [Bool]
    public var droppedSamples: Int
    public var levelDB: Double?
    public var status: CheckInStatus
    public var home: LocalHour
    public var hours: [LocalHour: CheckInAnalysis.HourShare]

    public init(
        samples: Int, droppedFlags: [Bool], droppedSamples: Int, levelDB: Double?, status: CheckInStatus, home: LocalHour,
        hours: [LocalHour: CheckInAnalysis.HourShare]
    ) {
        self.samples = samples
        self.droppedFlags = droppedFlags
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
    /// A check-in's stored spikes, level, length status, home hour and per-hour sums against its analysis.
    public static func differences(checkIn id: String, stored: DerivedFacts, analysis: CheckInAnalysis) -> [String] {
        var differences: [String] = []
        if stored.droppedFlags.count != stored.samples {
            differences.append("check-in \(id): \(stored.droppedFlags.count) samples stored, the check-in says \(stored.samples)")
        }
        if analysis.dropped != stored.droppedFlags || analysis.droppedSamples != stored.droppedSamples {
            differences.append("check-in \(id): dropped samples differ from the spike filter's")
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
            || analysis.hours.contains(where: { hour, share in
                stored.hours[hour].map { !$0.matches(share) } ?? true
            })
        {
            differences.append("check-in \(id): per-hour sums differ from its samples'")
        }
        return differences
    }

    /// The stored statuses of a venue's check-ins against the status rule's.
    public static func differences<Key>(venue: String, candidates: [StatusCandidate<Key>]) -> [String] {
        let wrong = statusChanges(among: candidates)
        return wrong.isEmpty ? [] : ["venue \(venue): \(wrong.count) check-in(s) have a status the rules do not give"]
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
