import Foundation
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
    /// As the stores keep it, in one bytes column: per bin by rising bin, the bin's distance from
    /// the one before (less one; the first bin as a zigzag number) and its count, each a varint;
    /// no bytes for no seconds. A bin next to the one before and a count under 128 take two bytes,
    /// against nine as `bin:count,` text, which the stores kept before (`init(text:)`).
    public var stored: Data {
        var writer = SampleColumns.ByteWriter()
        var previous: Int?
        for bin in counts.keys.sorted() {
            if let previous { writer.varint(UInt64(bin - previous - 1)) } else { writer.signedVarint(Int64(bin)) }
            writer.varint(UInt64(counts[bin] ?? 0))
            previous = bin
        }
        return Data(writer.bytes)
    }

    public struct Malformed: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// The most seconds a bin may count and the farthest a bin may lie from 0 dB: far beyond any
    /// cell's, so that a damaged histogram cannot make sums overflow.
    static let largestCount = 1_000_000_000_000
    static let farthestBin = 100_000

    /// From `stored`; `nil` (a row stored before the histograms existed) is no seconds.
    public init(stored bytes: Data?) throws(Malformed) {
        var reader = SampleColumns.ByteReader(Array(bytes ?? Data()))
        var counts: [Int: Int] = [:]
        var previous: Int?
        while !reader.isAtEnd {
            // The first bin signed, the others a distance up from the one before.
            guard let step = try? previous == nil ? reader.signedVarint() : Int64(clamping: reader.varint()), let count = try? reader.varint() else {
                throw Malformed(description: "a level histogram ends in the middle of a bin")
            }
            // Bounded before any arithmetic, so that a damaged number cannot overflow.
            guard step.magnitude <= UInt64(4 * Self.farthestBin) else { throw Malformed(description: "a level histogram's bins lie beyond ±\(Self.farthestBin)") }
            let bin = previous.map { $0 + Int(step) + 1 } ?? Int(step)
            guard abs(bin) <= Self.farthestBin else { throw Malformed(description: "a level histogram's bins lie beyond ±\(Self.farthestBin)") }
            guard count > 0, count <= UInt64(Self.largestCount) else { throw Malformed(description: "a level histogram counts \(count) seconds in a bin") }
            counts[bin] = Int(count)
            previous = bin
        }
        self.counts = counts
    }
}
