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
    /// read it as plain text and it is a tenth of the size; written and read byte by byte because
    /// every upload reads and writes its venue's cells (through `String` interpolation and
    /// `split` that was a tenth of an upload's CPU, docs/profiling.md "Ingest").
    public var stored: String {
        var text: [UInt8] = []
        text.reserveCapacity(counts.count * 8)
        for bin in counts.keys.sorted() {
            if !text.isEmpty { text.append(UInt8(ascii: ",")) }
            Self.appendDecimal(bin, to: &text)
            text.append(UInt8(ascii: ":"))
            Self.appendDecimal(counts[bin] ?? 0, to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func appendDecimal(_ number: Int, to text: inout [UInt8]) {
        if number < 0 { text.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        let first = text.count
        repeat {
            text.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        text[first...].reverse()
    }

    public struct Malformed: Error, CustomStringConvertible {
        public let text: String
        public var description: String { "a level histogram is not bin:count pairs: \(text.prefix(80))" }
    }

    /// From `stored`; `nil` (a row stored before the histograms existed) is no seconds.
    public init(stored text: String?) throws {
        guard var text, !text.isEmpty else {
            self = .empty
            return
        }
        let counts = text.withUTF8(Self.pairs)
        guard let counts else { throw Malformed(text: text) }
        self.counts = counts
    }

    /// `bin:count` pairs, each bin once and each count above zero; nil for anything else.
    private static func pairs(_ text: UnsafeBufferPointer<UInt8>) -> [Int: Int]? {
        var counts: [Int: Int] = [:]
        counts.reserveCapacity(text.count / 6)
        var index = 0
        // A decimal integer, an optional minus sign first; at most 15 digits, so it cannot overflow.
        func integer() -> Int? {
            let negative = index < text.count && text[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            let start = index
            var value = 0
            while index < text.count, index - start < 16, case let digit = text[index] &- UInt8(ascii: "0"), digit < 10 {
                value = value * 10 + Int(digit)
                index += 1
            }
            guard index > start, index - start <= 15 else { return nil }
            return negative ? -value : value
        }
        while true {
            guard let bin = integer(), index < text.count, text[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let count = integer(), count > 0, counts.updateValue(count, forKey: bin) == nil else { return nil }
            if index == text.count { return counts }
            guard text[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }
}
