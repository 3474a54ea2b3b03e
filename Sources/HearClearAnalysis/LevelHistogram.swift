import HearClearCore

/// How many seconds fell at each level, in bins 0.5 dB wide centred on whole and half decibels
/// (bin 141 holds 70.25 dB up to, not including, 70.75 dB, and reads 70.5): what a cell's
/// percentile levels (L10, L50, L90) are read from. Sparse, so a cell costs what its levels span,
/// not the whole scale; counts add, so a cell is the sum of its check-ins' hours.
public struct LevelHistogram: Sendable, Equatable {
    /// Seconds per bin; bins no second fell in are absent.
    public private(set) var counts: [Int: Int]

    public static let empty = LevelHistogram(counts: [:])
    public static let binWidthDB = 0.5

    public init(counts: [Int: Int]) {
        self.counts = counts.filter { $0.value != 0 }
    }

    public var seconds: Int { counts.values.reduce(0, +) }

    static func bin(of levelDB: Double) -> Int { Int((levelDB / binWidthDB).rounded()) }

    mutating func add(_ levelDB: Double) {
        counts[Self.bin(of: levelDB), default: 0] += 1
    }

    public func adding(_ other: LevelHistogram) -> LevelHistogram {
        LevelHistogram(counts: counts.merging(other.counts, uniquingKeysWith: +))
    }

    /// Every level moved by `db`, to the nearest bin: a pruned check-in's new calibration, whose
    /// seconds are gone, so that its levels move by at most a quarter decibel more or less than the
    /// calibration did.
    public func shifted(byDB db: Double) -> LevelHistogram {
        let bins = Int((db / Self.binWidthDB).rounded())
        return LevelHistogram(counts: Dictionary(uniqueKeysWithValues: counts.map { ($0.key + bins, $0.value) }))
    }

    /// The level exceeded in `percent` % of the seconds (L10 for 10): the level of the second that
    /// many seconds from the loudest, counting by nearest rank, as its bin reads; `nil` without seconds.
    public func exceeded(percent: Int) -> Double? {
        let total = seconds
        guard total > 0 else { return nil }
        let rank = max(1, (percent * total + 99) / 100)
        var counted = 0
        for bin in counts.keys.sorted(by: >) {
            counted += counts[bin] ?? 0
            if counted >= rank { return Double(bin) * Self.binWidthDB }
        }
        return nil
    }
}

extension LevelHistogram {
    /// As the stores keep it, in one text column: `bin:count` pairs by rising bin, comma-separated
    /// (`140:3,141:12`), empty for no seconds. Hand-written rather than JSON because both stores
    /// read it as plain text and it is a tenth of the size.
    public var stored: String {
        counts.keys.sorted().map { "\($0):\(counts[$0] ?? 0)" }.joined(separator: ",")
    }

    public struct Malformed: Error, CustomStringConvertible {
        public let text: String
        public var description: String { "a level histogram is not bin:count pairs: \(text.prefix(80))" }
    }

    /// From `stored`; `nil` (a row stored before the histograms existed) is no seconds.
    public init(stored text: String?) throws {
        guard let text, !text.isEmpty else {
            self = .empty
            return
        }
        var counts: [Int: Int] = [:]
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let bin = Int(parts[0]), let count = Int(parts[1]), count > 0, counts[bin] == nil else { throw Malformed(text: text) }
            counts[bin] = count
        }
        self.init(counts: counts)
    }
}
