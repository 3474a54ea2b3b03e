import Foundation
import HearClearCore

/// The rules that turn uploaded levels into a venue's loudness; docs/analysis.md explains them.
/// Pure functions, so any store (SQLite now, PostgreSQL later) applies exactly the same rules.
enum Analysis {
    /// Hampel filter: a centred window of 7 samples.
    static let spikeHalfWindow = 3
    static let spikeSigmas = 3.0
    /// 1.4826 × MAD estimates the standard deviation of normally distributed values.
    static let madToSigma = 1.4826
    /// A spike must also stand this far from its neighbours, so a steady room's tiny wobbles are kept.
    static let minimumSpikeDB = 6.0
    /// A check-in with fewer kept samples than this is `too_short`.
    static let minimumKeptSamples = 15
    /// The outlier rule decides only against at least this many other check-ins.
    static let minimumReferences = 5
    static let minimumOutlierDistanceDB = 6.0

    static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty)
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func medianAbsoluteDeviation(_ values: [Double], around center: Double) -> Double {
        median(values.map { abs($0 - center) })
    }

    /// Which levels are spikes: further from the median of their window than both 3 × 1.4826 × MAD
    /// and 6 dB. Windows are cut short at the ends of the check-in. Works in two small buffers, as
    /// it runs on every uploaded sample.
    static func spikes(in levels: [Double]) -> [Bool] {
        var window = [Double](repeating: 0, count: 2 * spikeHalfWindow + 1)
        var deviations = window
        return levels.indices.map { index in
            let lower = max(0, index - spikeHalfWindow), upper = min(levels.count - 1, index + spikeHalfWindow)
            let count = upper - lower + 1
            for offset in 0..<count { window[offset] = levels[lower + offset] }
            let center = sortedMedian(&window, count: count)
            for offset in 0..<count { deviations[offset] = abs(levels[lower + offset] - center) }
            let mad = sortedMedian(&deviations, count: count)
            let distance = abs(levels[index] - center)
            return distance > spikeSigmas * madToSigma * mad && distance > minimumSpikeDB
        }
    }

    /// The median of the first `count` values, sorting them in place (insertion sort: there are at most 7).
    private static func sortedMedian(_ values: inout [Double], count: Int) -> Double {
        for i in 1..<max(1, count) {
            let value = values[i]
            var j = i - 1
            while j >= 0 && values[j] > value {
                values[j + 1] = values[j]
                j -= 1
            }
            values[j + 1] = value
        }
        let middle = count / 2
        return count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }

    /// Which check-ins a check-in at `weekday` is compared with, among the venue's others at the same
    /// home hour: those at the same weekday when there are enough, else all of them.
    static func references(forWeekday weekday: Int, among others: [(level: Double, weekday: Int)]) -> (sameWeekday: Bool, levels: [Double]) {
        let sameWeekday = others.filter { $0.weekday == weekday }
        return sameWeekday.count >= minimumReferences ? (true, sameWeekday.map(\.level)) : (false, others.map(\.level))
    }

    /// Whether a check-in's level is an outlier among the levels of comparable check-ins:
    /// further from their median than max(3 × 1.4826 × MAD, 6 dB). `nil` when there are too few to decide.
    static func isOutlier(_ level: Double, among references: [Double]) -> Bool? {
        guard references.count >= minimumReferences else { return nil }
        let center = median(references)
        let mad = medianAbsoluteDeviation(references, around: center)
        return abs(level - center) > max(spikeSigmas * madToSigma * mad, minimumOutlierDistanceDB)
    }
}

/// A local weekday (0 = Monday) and hour (0–23) at a venue.
struct LocalHour: Hashable, Comparable, Sendable {
    var weekday: Int
    var hour: Int

    static func < (lhs: LocalHour, rhs: LocalHour) -> Bool {
        (lhs.weekday, lhs.hour) < (rhs.weekday, rhs.hour)
    }
}

/// Converts instants to a venue's local weekday and hour, daylight saving included.
struct VenueClock: Sendable {
    let timeZone: TimeZone

    init?(timeZoneIdentifier: String) {
        guard let timeZone = TimeZone(identifier: timeZoneIdentifier) else { return nil }
        self.timeZone = timeZone
    }

    func localHour(at instant: TimeInterval, offset: Int? = nil) -> LocalHour {
        let offset = offset ?? timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))
        let local = Int((instant + Double(offset)).rounded(.down))
        let day = local.floorDivided(by: 86_400)
        // 1970-01-01 was a Thursday, weekday 3 counting from Monday.
        let weekday = (day + 3).floorModulo(7)
        let hour = (local - day * 86_400) / 3_600
        return LocalHour(weekday: weekday, hour: hour)
    }

    /// The local hour of each instant (ascending). The zone's offset is looked up once when it
    /// is the same at both ends, which is the case for all but the check-ins that span a DST change.
    func localHours(at instants: [TimeInterval]) -> [LocalHour] {
        guard let first = instants.first, let last = instants.last else { return [] }
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: first))
        let steady = offset == timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: last))
        return instants.map { localHour(at: $0, offset: steady ? offset : nil) }
    }
}

extension Int {
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }

    fileprivate func floorModulo(_ divisor: Int) -> Int {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}

/// What a check-in contributes on its own, before it is compared with the venue's other check-ins.
struct CheckInAnalysis: Sendable {
    struct HourShare: Equatable, Sendable {
        var samples: Int
        /// Sum of the energies of the kept, calibrated levels.
        var energy: Double
    }

    /// Per sample, whether the spike filter dropped it.
    let dropped: [Bool]
    let keptSamples: Int
    /// Leq of the kept samples, calibrated; `nil` when nothing was kept.
    let levelDB: Double?
    /// Kept samples per local weekday-hour; a check-in counts once in each.
    let hours: [LocalHour: HourShare]
    /// The weekday-hour holding most kept samples (the earliest on a tie): where the outlier rule compares it.
    let homeHour: LocalHour

    var isTooShort: Bool { keptSamples < Analysis.minimumKeptSamples }

    /// The analysis of stored samples, as a check-in started at `startedAt`.
    init(samples: [Sample], startedAt: TimeInterval, intervalS: Double, venueID: String, calibrationDB: Double, clock: VenueClock) {
        let checkIn = CheckIn(id: UUID(), venueID: venueID, startedAt: Date(timeIntervalSince1970: startedAt), intervalS: intervalS, samples: samples)
        self.init(checkIn: checkIn, calibrationDB: calibrationDB, clock: clock)
    }

    init(checkIn: CheckIn, calibrationDB: Double, clock: VenueClock) {
        let levels = checkIn.samples.map(\.avg)
        dropped = Analysis.spikes(in: levels)
        let start = checkIn.startedAt.timeIntervalSince1970
        let localHours = clock.localHours(at: checkIn.samples.map { start + $0.t })

        var hours: [LocalHour: HourShare] = [:]
        var firstSeen: [LocalHour] = []
        var kept = 0
        var energy = 0.0
        for index in levels.indices where !dropped[index] {
            let sampleEnergy = Level.energy(levels[index] + calibrationDB)
            kept += 1
            energy += sampleEnergy
            let hour = localHours[index]
            if hours[hour] == nil { firstSeen.append(hour) }
            hours[hour, default: HourShare(samples: 0, energy: 0)].samples += 1
            hours[hour]!.energy += sampleEnergy
        }
        keptSamples = kept
        levelDB = kept > 0 ? Level.level(energy: energy / Double(kept)) : nil
        self.hours = hours
        var home = firstSeen.first ?? localHours[0]
        for hour in firstSeen where hours[hour]!.samples > hours[home]!.samples {
            home = hour
        }
        homeHour = home
    }
}
