import Foundation

/// A cell's (or a check-in hour's) spread: the histogram of its kept seconds' calibrated A levels,
/// and that of the Fast maxima of those that carry details.
public struct LevelSpread: Sendable, Equatable {
    public var levels: LevelHistogram
    public var fastMaxima: LevelHistogram

    public static let empty = LevelSpread(levels: .empty, fastMaxima: .empty)

    /// The store's columns, in the order of `storedValues`: the same names in `checkin_hour` and `loudness`.
    public static let columns = ["level_histogram", "fast_max_histogram"]

    public init(levels: LevelHistogram, fastMaxima: LevelHistogram) {
        self.levels = levels
        self.fastMaxima = fastMaxima
    }

    public init(stored: [Data?]) throws(LevelHistogram.Malformed) {
        self.init(levels: try LevelHistogram(stored: stored[0]), fastMaxima: try LevelHistogram(stored: stored[1]))
    }

    public var storedValues: [Data] { [levels.stored, fastMaxima.stored] }

    mutating func add(levelDB: Double, fastMaxDB: Double?, seconds: Int) {
        levels.add(levelDB, seconds: seconds)
        if let fastMaxDB { fastMaxima.add(fastMaxDB, seconds: seconds) }
    }

    public func adding(_ other: LevelSpread) -> LevelSpread {
        LevelSpread(levels: levels.adding(other.levels), fastMaxima: fastMaxima.adding(other.fastMaxima))
    }

    /// `other`'s seconds taken away; `nil` when it holds seconds this does not.
    func removing(_ other: LevelSpread) -> LevelSpread? {
        guard let levels = levels.removing(other.levels), let fastMaxima = fastMaxima.removing(other.fastMaxima) else { return nil }
        return LevelSpread(levels: levels, fastMaxima: fastMaxima)
    }

    public func shifted(byDB db: Double) -> LevelSpread {
        LevelSpread(levels: levels.shifted(byDB: db), fastMaxima: fastMaxima.shifted(byDB: db))
    }

    /// dB(A) exceeded in 10, 50 and 90 % of the seconds.
    public var l10: Double? { levels.exceeded(percent: 10) }
    public var l50: Double? { levels.exceeded(percent: 50) }
    public var l90: Double? { levels.exceeded(percent: 90) }
    /// The 90th percentile of the per-second Fast maxima: how loud the loudest tenth of the seconds' bursts get.
    public var fastMaxP90: Double? { fastMaxima.exceeded(percent: 10) }
}
