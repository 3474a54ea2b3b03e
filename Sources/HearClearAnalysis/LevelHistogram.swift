import Foundation
import HearClearCore

/// How many seconds fell at each level, in bins 0.5 dB wide centred on whole and half decibels
/// (bin 141 holds 70.25 dB up to, not including, 70.75 dB, and reads 70.5): what a cell's
/// percentile levels (L10, L50, L90) are read from. Kept from the lowest bin a second fell in to
/// the highest, so a cell costs what its levels span, not the whole scale; counts add, so a cell
/// is the sum of its check-ins' hours.
public struct LevelHistogram: Sendable, Equatable {
    /// The bin of `bins[0]`; 0 when there are no seconds.
    private var lowestBin: Int
    /// Seconds per bin from `lowestBin` up, the first and the last above 0 (none for no seconds).
    /// Contiguous rather than a dictionary: summing a venue's cells adds and decodes them by the
    /// thousand on every status change, and a dictionary's hashing was most of that (docs/profiling.md).
    private var bins: [Int]

    public static let empty = LevelHistogram(lowestBin: 0, bins: [])
    public static let binWidthDB = 0.5

    private init(lowestBin: Int, bins: [Int]) {
        // Trimmed, so that equal histograms are equal values.
        guard let first = bins.firstIndex(where: { $0 != 0 }), let last = bins.lastIndex(where: { $0 != 0 }) else {
            self.lowestBin = 0
            self.bins = []
            return
        }
        self.lowestBin = lowestBin + first
        self.bins = first == 0 && last == bins.count - 1 ? bins : Array(bins[first...last])
    }

    public init(counts: [Int: Int]) {
        guard let low = counts.keys.min(), let high = counts.keys.max() else {
            self = .empty
            return
        }
        var bins = [Int](repeating: 0, count: high - low + 1)
        for (bin, count) in counts { bins[bin - low] = count }
        self.init(lowestBin: low, bins: bins)
    }

    /// Seconds per bin; bins no second fell in are absent.
    public var counts: [Int: Int] {
        Dictionary(uniqueKeysWithValues: bins.enumerated().filter { $0.element != 0 }.map { (lowestBin + $0.offset, $0.element) })
    }

    public var seconds: Int { bins.reduce(0, +) }

    static func bin(of levelDB: Double) -> Int { Int((levelDB / binWidthDB).rounded()) }

    /// `seconds` seconds at `levelDB`.
    mutating func add(_ levelDB: Double, seconds: Int) {
        let bin = Self.bin(of: levelDB)
        if bins.isEmpty {
            lowestBin = bin
            bins = [seconds]
        } else if bin < lowestBin {
            bins.insert(contentsOf: repeatElement(0, count: lowestBin - bin), at: 0)
            lowestBin = bin
            bins[0] = seconds
        } else if bin - lowestBin >= bins.count {
            bins.append(contentsOf: repeatElement(0, count: bin - lowestBin - bins.count + 1))
            bins[bins.count - 1] = seconds
        } else {
            bins[bin - lowestBin] += seconds
        }
    }

    public func adding(_ other: LevelHistogram) -> LevelHistogram {
        if other.bins.isEmpty { return self }
        if bins.isEmpty { return other }
        let low = min(lowestBin, other.lowestBin), high = max(lowestBin + bins.count, other.lowestBin + other.bins.count)
        var sum = [Int](repeating: 0, count: high - low)
        for (offset, count) in bins.enumerated() { sum[lowestBin - low + offset] += count }
        for (offset, count) in other.bins.enumerated() { sum[other.lowestBin - low + offset] += count }
        return LevelHistogram(lowestBin: low, bins: sum)
    }

    /// The seconds of `other` taken away, bin by bin; `nil` when it holds seconds this does not.
    func removing(_ other: LevelHistogram) -> LevelHistogram? {
        if other.bins.isEmpty { return self }
        let start = other.lowestBin - lowestBin
        guard start >= 0, start + other.bins.count <= bins.count else { return nil }
        var difference = bins
        for (offset, count) in other.bins.enumerated() {
            difference[start + offset] -= count
            if difference[start + offset] < 0 { return nil }
        }
        return LevelHistogram(lowestBin: lowestBin, bins: difference)
    }

    /// Every level moved by `db`, to the nearest bin: a pruned check-in's new calibration, whose
    /// seconds are gone, so that its levels move by at most a quarter decibel more or less than the
    /// calibration did.
    public func shifted(byDB db: Double) -> LevelHistogram {
        bins.isEmpty ? self : LevelHistogram(lowestBin: lowestBin + Int((db / Self.binWidthDB).rounded()), bins: bins)
    }

    /// The level exceeded in `percent` % of the seconds (L10 for 10): the level of the second that
    /// many seconds from the loudest, counting by nearest rank, as its bin reads; `nil` without seconds.
    public func exceeded(percent: Int) -> Double? {
        let total = seconds
        guard total > 0 else { return nil }
        let rank = max(1, (percent * total + 99) / 100)
        var counted = 0
        for offset in bins.indices.reversed() {
            counted += bins[offset]
            if counted >= rank { return Double(lowestBin + offset) * Self.binWidthDB }
        }
        return nil
    }
}

extension LevelHistogram {
    /// As the stores keep it, in one bytes column: the lowest bin as a zigzag varint, then the
    /// count of every bin from it up to the highest, each a varint, where a count of 0 is followed
    /// by how many more bins after it hold no second; no bytes for no seconds. A level's seconds
    /// fill the bins between its lowest and highest nearly without gaps, so a bin whose count is
    /// under 128 takes one byte, against two with the distance from the bin before that the stores
    /// wrote until migration 0012 (`gapped`); a gap costs one byte more than it did there.
    public var stored: Data {
        guard !bins.isEmpty else { return Data() }
        var writer = SampleColumns.ByteWriter()
        writer.signedVarint(Int64(lowestBin))
        var index = 0
        while index < bins.count {
            writer.varint(UInt64(bins[index]))
            if bins[index] == 0 {
                let run = bins[index...].prefix { $0 == 0 }.count
                writer.varint(UInt64(run - 1))
                index += run
            } else {
                index += 1
            }
        }
        return Data(writer.bytes)
    }

    public struct Malformed: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }

        /// A bin past `farthestBin`, however the bytes said it.
        static let beyondRange = Malformed(description: "a level histogram's bins lie beyond ±\(LevelHistogram.farthestBin)")
    }

    /// The most seconds a bin may count and the farthest a bin may lie from 0 dB: far beyond any
    /// cell's, so that a damaged histogram cannot make sums overflow.
    static let largestCount = 1_000_000_000_000
    static let farthestBin = 100_000

    /// From `stored`; `nil` (a row stored before the histograms existed) is no seconds.
    public init(stored bytes: Data?) throws(Malformed) {
        guard let bytes, !bytes.isEmpty else {
            self = .empty
            return
        }
        var reader = SampleColumns.ByteReader(Array(bytes))
        guard let first = try? reader.signedVarint() else { throw Malformed(description: "a level histogram ends in the middle of its lowest bin") }
        // Bounded before any arithmetic, so that a damaged number cannot overflow or ask for memory.
        guard first.magnitude <= UInt64(Self.farthestBin) else { throw Malformed.beyondRange }
        var bins: [Int] = []
        bins.reserveCapacity(reader.remaining)
        while !reader.isAtEnd {
            guard let count = try? reader.varint() else { throw Malformed(description: "a level histogram ends in the middle of a bin") }
            guard count <= UInt64(Self.largestCount) else { throw Malformed(description: "a level histogram counts \(count) seconds in a bin") }
            var run: UInt64 = 1
            if count == 0 {
                // Written once for each run, so that each histogram has one form and equal ones are equal bytes.
                guard bins.last ?? 0 > 0, let more = try? reader.varint() else {
                    throw Malformed(description: "a level histogram's empty bins are not one run after a bin that holds seconds")
                }
                guard more < UInt64(2 * Self.farthestBin) else { throw Malformed.beyondRange }
                run = more + 1
            }
            guard Int(first) + bins.count + Int(run) <= Self.farthestBin + 1 else {
                throw Malformed.beyondRange
            }
            bins.append(contentsOf: repeatElement(Int(count), count: Int(run)))
        }
        guard bins.last ?? 0 > 0 else { throw Malformed(description: "a level histogram's highest bin holds no seconds") }
        self.init(lowestBin: Int(first), bins: bins)
    }
}
