import Foundation
import HearClearCore

/// The rules that turn uploaded levels into a venue's loudness; docs/analysis.md explains them.
/// Every rule is written here once, in code that knows no SQL: the stores fetch what a rule needs,
/// apply it through these functions and save what it decides.
///
/// The rules are generic over a store's check-in key, which both stores make an `Int64`; those a
/// store runs for every upload are specialized for it (`@_specialize(exported:)`), since across
/// modules the compiler does not specialize them and, unspecialized, looking up generic metadata
/// and key paths took a tenth of the SQLite writer's time (docs/profiling.md, Ingest).
public enum Analysis {
    /// Hampel filter: a centred window of 7 samples.
    public static let spikeHalfWindow = 3
    public static let spikeSigmas = 3.0
    /// 1.4826 × MAD estimates the standard deviation of normally distributed values.
    public static let madToSigma = 1.4826
    /// A spike must also stand this far from its neighbours, so a steady room's tiny wobbles are kept.
    public static let minimumSpikeDB = 6.0
    /// A check-in with fewer kept samples than this is `too_short`: a number of the API's
    /// contract, since clients refuse to measure for less.
    public static let minimumKeptSamples = CheckIn.fewestCountedIntervals
    /// The outlier rule decides only against at least this many other check-ins.
    public static let minimumReferences = 5
    public static let minimumOutlierDistanceDB = 6.0

    public static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty)
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func medianAbsoluteDeviation(_ values: [Double], around center: Double) -> Double {
        median(values.map { abs($0 - center) })
    }

    /// How far from the median a value may be before it stands out: 3 × 1.4826 × MAD, and at least
    /// `floor`. One formula for spikes and outliers.
    static func allowedDistance(mad: Double, floor: Double) -> Double {
        max(spikeSigmas * madToSigma * mad, floor)
    }

    /// Which levels a check-in leaves out: silence (`Level.isSilence`: an input muted or giving
    /// zeros, which would otherwise count as the quietest hour a venue ever had), then the spikes
    /// among the rest, so that a muted stretch does not make the sound beside it look like spikes.
    public static func dropped(in levels: [Double]) -> [Bool] {
        guard levels.contains(where: Level.isSilence) else { return spikes(in: levels) }
        let sounding = levels.indices.filter { !Level.isSilence(levels[$0]) }
        var dropped = [Bool](repeating: true, count: levels.count)
        for (index, spike) in zip(sounding, spikes(in: sounding.map { levels[$0] })) { dropped[index] = spike }
        return dropped
    }

    /// Which levels are spikes: further from the median of their window than both 3 × 1.4826 × MAD
    /// and 6 dB. Windows are cut short at the ends of the check-in. Works in two small buffers, as
    /// it runs on every uploaded sample.
    public static func spikes(in levels: [Double]) -> [Bool] {
        var window = [Double](repeating: 0, count: 2 * spikeHalfWindow + 1)
        var deviations = window
        return levels.indices.map { index in
            let lower = max(0, index - spikeHalfWindow), upper = min(levels.count - 1, index + spikeHalfWindow)
            if upper - lower == 2 * spikeHalfWindow {
                // A whole window, as all but six of a check-in's seconds have.
                let level = { levels[lower + $0] }
                let center = medianOfSeven(level(0), level(1), level(2), level(3), level(4), level(5), level(6))
                let deviation = { abs(level($0) - center) }
                let mad = medianOfSeven(deviation(0), deviation(1), deviation(2), deviation(3), deviation(4), deviation(5), deviation(6))
                return abs(levels[index] - center) > allowedDistance(mad: mad, floor: minimumSpikeDB)
            }
            let count = upper - lower + 1
            for offset in 0..<count { window[offset] = levels[lower + offset] }
            let center = sortedMedian(&window, count: count)
            for offset in 0..<count { deviations[offset] = abs(levels[lower + offset] - center) }
            let mad = sortedMedian(&deviations, count: count)
            // Strictly beyond: with a MAD of zero, a level 6.0 dB away is still kept.
            return abs(levels[index] - center) > allowedDistance(mad: mad, floor: minimumSpikeDB)
        }
    }

    /// The median of seven values by a selection network: thirteen compare-exchanges, each a `min`
    /// and a `max`, where sorting the window twice a second was the spike filter's cost (3 % of
    /// the server's CPU under the ingest case, `perf`). The same value as sorting them
    /// (`AnalysisTests` tries every order and every tie of seven).
    static func medianOfSeven(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double, _ g: Double) -> Double {
        var (p0, p1, p2, p3, p4, p5, p6) = (a, b, c, d, e, f, g)
        func order(_ low: inout Double, _ high: inout Double) { (low, high) = (min(low, high), max(low, high)) }
        order(&p0, &p5); order(&p0, &p3); order(&p1, &p6); order(&p2, &p4); order(&p0, &p1); order(&p3, &p5); order(&p2, &p6)
        order(&p2, &p3); order(&p3, &p6); order(&p4, &p5); order(&p1, &p4); order(&p1, &p3); order(&p3, &p4)
        return p3
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
}
