import CZlib
import Foundation
import HearClearCore

/// A check-in's samples as both stores keep them: one blob per check-in, its seconds as columns
/// (docs/storage.md, "The samples blob"). No query reads seconds across check-ins, and a row per
/// second cost ~85 bytes where these columns cost under ten.
///
/// A blob is a format byte, the CRC-32 of the rest and the payload, range-coded (`RangeEncoder`).
/// The payload holds, in order: the number of samples; a byte of flags (`t` listed, details,
/// classes, each for all samples or for those a bitmap names); `t` only when the samples are not at
/// 0, interval, 2·interval, …; each level column; the classes; the dropped samples' indices.
///
/// A level column is either fixed-point, in tenths of a dB (what API v2 carries, so every level it
/// brings) or finer steps down to a millionth, the coarsest that holds every level of the column
/// exactly (and past `avg`, no coarser than `avg`'s), each level past `avg` less the interval's
/// `avg` (they move together), then as its difference from the value before or from the column's
/// median, whichever leaves smaller numbers; or, when no such step holds them all (API v1 brings
/// any precision), the IEEE doubles as they came. Nothing is rounded: decoding gives back exactly
/// what was stored. Format 1 (varints deflated by zlib) is still read.
public struct SampleColumns: Sendable, Equatable {
    public var samples: [Sample]
    /// The spike filter's verdict per sample, as the check-in was analysed.
    public var dropped: [Bool]

    /// The format this code writes: range-coded columns. It reads every format it ever wrote.
    public static let formatVersion: UInt8 = 2
    /// The first format, varints deflated by zlib, which blobs stored before format 2 keep.
    static let deflatedFormat: UInt8 = 1
    /// The most bytes a format 1 blob's payload may claim: beyond any check-in's, and a damaged
    /// claim must not ask for memory.
    static let largestPayload = 64 << 20

    public init(samples: [Sample], dropped: [Bool]) {
        precondition(samples.count == dropped.count, "one dropped flag per sample")
        self.samples = samples
        self.dropped = dropped
    }

    /// Why a blob cannot be read: it is not one this code wrote, or it was damaged.
    public struct Unreadable: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    private struct Flags: OptionSet {
        let rawValue: UInt8
        static let timesListed = Flags(rawValue: 1)
        static let details = Flags(rawValue: 2)
        static let detailsInPart = Flags(rawValue: 4)
        static let classes = Flags(rawValue: 8)
        static let classesInPart = Flags(rawValue: 16)
    }

    /// A level column in whole steps of 10^−decimals dB.
    private struct FixedPoint {
        /// 1 to 6 (3 in format 1); the column's kind (0 is a column of doubles).
        var decimals: Int
        var steps: [Int]

        var scale: Double { Self.scale(decimals) }

        static let mostDecimals = 6

        static func scale(_ decimals: Int) -> Double { [1, 10, 100, 1000, 10_000, 100_000, 1_000_000][decimals] }

        /// The coarsest step, of `decimals` or more, that holds every level exactly, if one does
        /// (and every level is finite and sane).
        init?(_ levels: [Double], decimals coarsest: Int = 1) {
            guard levels.allSatisfy({ $0.isFinite && abs($0) < 1e6 }) else { return nil }
            for decimals in coarsest...Self.mostDecimals {
                let scale = Self.scale(decimals)
                let steps = levels.map { Int(($0 * scale).rounded()) }
                if zip(steps, levels).allSatisfy({ Double($0) / scale == $1 }) {
                    (self.decimals, self.steps) = (decimals, steps)
                    return
                }
            }
            return nil
        }

        init(decimals: Int, steps: [Int]) {
            (self.decimals, self.steps) = (decimals, steps)
        }

        var levels: [Double] {
            let scale = scale
            return steps.map { Double($0) / scale }
        }

        /// Picks the steps of `indices` (the samples with details, say).
        func picking(_ indices: [Int]) -> FixedPoint { FixedPoint(decimals: decimals, steps: indices.map { steps[$0] }) }

        /// These levels in the finer steps of a column of `decimals`, to be its reference; nil when
        /// that column's steps are coarser than these (format 1 took a reference of equal steps only).
        func steps(forDecimals decimals: Int) -> [Int]? {
            guard decimals >= self.decimals else { return nil }
            let factor = Int(Self.scale(decimals - self.decimals))
            return steps.map { $0 &* factor }
        }
    }

    // MARK: Encoding

    /// The blob of these samples, taken at `intervalS` seconds apart unless their `t` say otherwise.
    public func encoded(intervalS: Double) -> Data {
        var payload = CodedWriter()
        payload.number(samples.count)
        let timesListed = !samples.indices.allSatisfy { samples[$0].t == Double($0) * intervalS }
        let withDetails = samples.map { $0.details != nil }
        let withClasses = samples.map { $0.classes != nil }
        var flags: Flags = timesListed ? .timesListed : []
        flags.formUnion(Self.presence(withDetails, all: .details, part: [.details, .detailsInPart]))
        flags.formUnion(Self.presence(withClasses, all: .classes, part: [.classes, .classesInPart]))
        payload.bits(UInt64(flags.rawValue), count: 8)
        if timesListed { samples.forEach { payload.double($0.t) } }

        let averages = FixedPoint(samples.map(\.avg))
        Self.write(samples.map(\.avg), reference: nil, to: &payload)
        Self.write(samples.map(\.peak), reference: averages, to: &payload)
        if flags.contains(.details) {
            if flags.contains(.detailsInPart) { payload.bitmap(withDetails) }
            let detailed = samples.indices.filter { withDetails[$0] }
            let reference = averages?.picking(detailed)
            for column in 0..<Self.detailColumns {
                Self.write(detailed.map { Self.columnLevel(column, of: samples[$0].details!) }, reference: reference, to: &payload)
            }
        }
        if flags.contains(.classes) {
            if flags.contains(.classesInPart) { payload.bitmap(withClasses) }
            let percents = samples.compactMap { $0.classes?.percent }
            payload.steps(percents.map(\.speech), reference: nil)
            payload.steps(percents.map(\.music), reference: nil)
        }
        payload.indices(dropped.indices.filter { dropped[$0] })
        return Data([Self.formatVersion] + payload.finish())
    }

    /// The level of `LevelDetails` in the column at `index`, in the order the columns are written.
    private static func columnLevel(_ index: Int, of details: LevelDetails) -> Double {
        switch index {
        case 0: details.fastMax
        case 1: details.cAvg
        default: details.octave(index - 2)
        }
    }
    private static let detailColumns = 2 + LevelDetails.octaveNames.count

    private static func presence(_ present: [Bool], all: Flags, part: Flags) -> Flags {
        guard present.contains(true) else { return [] }
        return present.allSatisfy { $0 } ? all : part
    }

    /// A column with a reference is kept in steps at least as fine as the reference's, so that it
    /// can be coded less the reference (tenths are exact in hundredths).
    private static func write(_ levels: [Double], reference: FixedPoint?, to payload: inout CodedWriter) {
        guard let column = FixedPoint(levels, decimals: reference?.decimals ?? 1) else {
            payload.bits(0, count: 3)
            levels.forEach { payload.double($0) }
            return
        }
        payload.bits(UInt64(column.decimals), count: 3)
        payload.steps(column.steps, reference: reference?.steps(forDecimals: column.decimals))
    }

    // MARK: Decoding

    /// A stored check-in's samples: nil once retention dropped them (no blob), and when its blob
    /// cannot be read, an error that names the check-in.
    public static func stored(_ blob: Data?, intervalS: Double, checkIn id: String) throws(Unreadable) -> SampleColumns? {
        guard let blob else { return nil }
        do {
            return try SampleColumns(decoding: blob, intervalS: intervalS)
        } catch {
            throw Unreadable(description: "check-in \(id): \(error.description)")
        }
    }

    /// The samples of a blob `encoded(intervalS:)` wrote with the same interval, in this format or
    /// the one before.
    public init(decoding blob: Data, intervalS: Double) throws(Unreadable) {
        let bytes = Array(blob)
        guard let version = bytes.first else { throw Unreadable(description: "samples blob ends before its format") }
        switch version {
        case Self.formatVersion:
            var payload = try CodedReader(bytes.dropFirst())
            try self.init(reading: &payload, intervalS: intervalS)
        case Self.deflatedFormat:
            var header = ByteReader(bytes)
            _ = try header.byte()
            let length = try header.varint()
            guard length <= UInt64(Self.largestPayload) else { throw Unreadable(description: "samples blob claims \(length) bytes, more than any check-in holds") }
            var payload = ByteReader(try Self.inflated(Array(header.rest), length: Int(length)))
            try self.init(reading: &payload, intervalS: intervalS)
        default:
            throw Unreadable(
                description: "samples blob of format \(version), which this release cannot read (it reads formats \(Self.deflatedFormat) and \(Self.formatVersion))")
        }
    }

    /// The payload's structure, the same in both formats; `payload` reads each part as its format keeps it.
    private init(reading payload: inout some ColumnSource, intervalS: Double) throws(Unreadable) {
        let count = try payload.count()
        let flags = Flags(rawValue: try payload.flags())
        var times = (0..<count).map { Double($0) * intervalS }
        if flags.contains(.timesListed) {
            for index in times.indices { times[index] = try payload.double() }
        }
        let (averages, averageSteps) = try Self.readColumn(count: count, reference: nil, from: &payload)
        let peaks = try Self.readColumn(count: count, reference: averageSteps, from: &payload).levels

        var details = [LevelDetails?](repeating: nil, count: count)
        if flags.contains(.details) {
            let present = flags.contains(.detailsInPart) ? try payload.bitmap(count: count) : Array(repeating: true, count: count)
            let detailed = present.indices.filter { present[$0] }
            let reference = averageSteps?.picking(detailed)
            var columns: [[Double]] = []
            for _ in 0..<Self.detailColumns { columns.append(try Self.readColumn(count: detailed.count, reference: reference, from: &payload).levels) }
            for (position, index) in detailed.enumerated() {
                details[index] = LevelDetails(fastMax: columns[0][position], cAvg: columns[1][position]) { columns[2 + $0][position] }
            }
        }
        var classes = [SoundClasses?](repeating: nil, count: count)
        if flags.contains(.classes) {
            let present = flags.contains(.classesInPart) ? try payload.bitmap(count: count) : Array(repeating: true, count: count)
            let classified = present.indices.filter { present[$0] }
            let speech = try payload.steps(count: classified.count, reference: nil), music = try payload.steps(count: classified.count, reference: nil)
            for (position, index) in classified.enumerated() {
                guard (0...100).contains(speech[position]), (0...100).contains(music[position]) else {
                    throw Unreadable(description: "samples blob holds a class probability outside 0…100 %")
                }
                classes[index] = SoundClasses(percent: speech[position], music[position])
            }
        }
        var dropped = [Bool](repeating: false, count: count)
        for index in try payload.droppedIndices(below: count) { dropped[index] = true }
        guard payload.isAtEnd else { throw Unreadable(description: "samples blob does not end where its columns do") }
        self.init(
            samples: (0..<count).map { Sample(t: times[$0], avg: averages[$0], peak: peaks[$0], details: details[$0], classes: classes[$0]) },
            dropped: dropped)
    }

    private static func readColumn(count: Int, reference: FixedPoint?, from payload: inout some ColumnSource) throws(Unreadable) -> (levels: [Double], steps: FixedPoint?) {
        let kind = try payload.columnKind()
        switch kind {
        case 0:
            var levels: [Double] = []
            for _ in 0..<count { levels.append(try payload.double()) }
            return (levels, nil)
        case 1...UInt8(FixedPoint.mostDecimals):
            let referenceSteps = reference.flatMap { reference in
                type(of: payload).referencesFinerSteps ? reference.steps(forDecimals: Int(kind)) : reference.decimals == Int(kind) ? reference.steps : nil
            }
            let steps = try payload.steps(count: count, reference: referenceSteps)
            let column = FixedPoint(decimals: Int(kind), steps: steps)
            return (column.levels, column)
        default:
            throw Unreadable(description: "samples blob has a column of an unknown kind (\(kind))")
        }
    }

    private static func inflated(_ bytes: [UInt8], length: Int) throws(Unreadable) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: max(length, 1))
        var written = uLong(output.count)
        let status = uncompress(&output, &written, bytes, uLong(bytes.count))
        guard status == Z_OK, Int(written) == length else { throw Unreadable(description: "samples blob does not inflate to the \(length) bytes it claims (zlib \(status))") }
        return Array(output.prefix(length))
    }
}
