import CZlib

// Format 2 of the samples blob: the payload's structure and columns range-coded, each column with
// its own `IntegerModel` and the predictor that suits it (docs/storage.md, "The samples blob").

extension SampleColumns {
    /// How a column's whole steps become the small numbers that are coded.
    enum Predictor: UInt64 {
        /// Each value's difference from the one before: a level that wanders.
        case previous = 0
        /// Each value's difference from the column's median: a level that keeps its distance from
        /// its reference (a band a few dB under the A level) but is new noise every second, whose
        /// differences would be twice as spread.
        case median = 1
    }

    struct CodedWriter {
        private var encoder = RangeEncoder()
        /// Counts and medians: the few numbers outside the columns.
        private var structure = IntegerModel()

        mutating func number(_ value: Int) { structure.encode(signed: value, to: &encoder) }

        mutating func bits(_ value: UInt64, count: Int) { encoder.bits(value, count: count) }

        mutating func double(_ value: Double) { encoder.bits(value.bitPattern, count: 64) }

        /// Runs of present or absent seconds cost little: each bit is learned after the one before.
        mutating func bitmap(_ bits: [Bool]) {
            var probabilities = [AdaptiveBit(), AdaptiveBit()], previous = 0
            for bit in bits {
                encoder.bit(bit, &probabilities[previous])
                previous = bit ? 1 : 0
            }
        }

        /// A column of whole steps, less `reference` (the A level's steps) where given, by whichever
        /// predictor leaves the smaller numbers.
        mutating func steps(_ values: [Int], reference: [Int]?) {
            let residuals = reference.map { zip(values, $0).map { $0 &- $1 } } ?? values
            var previous = 0
            let differences = residuals.map { value in
                defer { previous = value }
                return value &- previous
            }
            let median = Self.median(of: residuals)
            let fromMedian = residuals.map { $0 &- median }
            let predictor: Predictor = Self.cost(fromMedian) < Self.cost(differences) ? .median : .previous
            bits(predictor.rawValue, count: 1)
            if predictor == .median { number(median) }
            var model = IntegerModel()
            for value in predictor == .median ? fromMedian : differences { model.encode(signed: value, to: &encoder) }
        }

        /// The upper median, counted rather than sorted when the values lie within a few thousand
        /// steps of each other, as a column's do: sorting every column took 3.5 % of the server's
        /// CPU under ingest (`perf`); the mean instead cost 0.1 byte a second more on the meter's
        /// seconds, the median of 64 of them as much (`hearclear-bench --only wire`).
        static func median(of values: [Int]) -> Int {
            guard let lowest = values.min(), let highest = values.max() else { return 0 }
            let (width, overflow) = highest.subtractingReportingOverflow(lowest)
            guard !overflow, width < 4096 else { return values.sorted()[values.count / 2] }
            var counts = [Int](repeating: 0, count: width + 1)
            for value in values { counts[value - lowest] += 1 }
            var below = 0
            for (offset, count) in counts.enumerated() {
                below += count
                if below > values.count / 2 { return lowest + offset }
            }
            return highest
        }

        /// Ascending indices, each as its distance from the one before.
        mutating func indices(_ indices: [Int]) {
            number(indices.count)
            var model = IntegerModel(), previous = 0
            for index in indices {
                model.encode(UInt64(index - previous), to: &encoder)
                previous = index
            }
        }

        /// About what `IntegerModel` spends on these numbers: twice their bits, as Elias gamma would.
        private static func cost(_ values: [Int]) -> Int {
            values.reduce(0) { total, value in
                total + 2 * (64 - (SampleColumns.zigzag(Int64(value)) + 1).leadingZeroBitCount) - 1
            }
        }

        /// The coded bytes after the CRC-32 of them (zlib's), which tells a damaged blob from one
        /// that merely decodes to other seconds.
        mutating func finish() -> [UInt8] {
            let coded = encoder.finish()
            return withUnsafeBytes(of: SampleColumns.checksum(of: coded[...]).littleEndian, Array.init) + coded
        }
    }

    /// zlib's CRC-32 of a format 2 blob's coded bytes.
    static func checksum(of coded: ArraySlice<UInt8>) -> UInt32 {
        UInt32(coded.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })
    }

    /// Reads what `CodedWriter` wrote.
    struct CodedReader: ColumnSource {
        private var decoder: RangeDecoder
        private var structure = IntegerModel()
        /// The most samples a format 2 blob may claim: far beyond a day of seconds (86,400), and
        /// a damaged claim beyond it must not ask for memory.
        static let mostSamples = 1 << 24
        static var referencesFinerSteps: Bool { true }

        init(_ bytes: ArraySlice<UInt8>) throws(Unreadable) {
            guard bytes.count >= 4 else { throw Unreadable(description: "samples blob ends before its checksum") }
            let coded = bytes.dropFirst(4)
            let stored = bytes.prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard SampleColumns.checksum(of: coded) == stored else { throw Unreadable(description: "samples blob fails its checksum: it was damaged") }
            decoder = RangeDecoder(coded)
        }

        var isAtEnd: Bool { decoder.isAtEnd }

        mutating func number() throws(Unreadable) -> Int { try structure.decodeSigned(from: &decoder) }

        mutating func count() throws(Unreadable) -> Int {
            let count = try number()
            guard (0...Self.mostSamples).contains(count) else { throw Unreadable(description: "samples blob claims \(count) samples") }
            return count
        }

        mutating func flags() throws(Unreadable) -> UInt8 { UInt8(decoder.bits(count: 8)) }

        mutating func columnKind() throws(Unreadable) -> UInt8 { UInt8(decoder.bits(count: 3)) }

        mutating func double() throws(Unreadable) -> Double { Double(bitPattern: decoder.bits(count: 64)) }

        mutating func bitmap(count: Int) throws(Unreadable) -> [Bool] {
            var probabilities = [AdaptiveBit(), AdaptiveBit()], previous = 0
            return (0..<count).map { _ in
                let bit = decoder.bit(&probabilities[previous])
                previous = bit ? 1 : 0
                return bit
            }
        }

        mutating func steps(count: Int, reference: [Int]?) throws(Unreadable) -> [Int] {
            let predictor = Predictor(rawValue: decoder.bits(count: 1))!
            let median = predictor == .median ? try number() : 0
            var model = IntegerModel(), values: [Int] = [], previous = 0
            values.reserveCapacity(count)
            for index in 0..<count {
                let coded = try model.decodeSigned(from: &decoder)
                let residual = predictor == .median ? median &+ coded : previous &+ coded
                previous = residual
                values.append(reference.map { residual &+ $0[index] } ?? residual)
            }
            return values
        }

        mutating func droppedIndices(below count: Int) throws(Unreadable) -> [Int] {
            let dropped = try number()
            guard (0...count).contains(dropped) else { throw Unreadable(description: "samples blob drops \(dropped) of \(count) samples") }
            var model = IntegerModel(), index: UInt64 = 0
            return try (0..<dropped).map { _ throws(Unreadable) in
                index &+= try model.decode(from: &decoder)
                guard index < UInt64(count) else { throw Unreadable(description: "samples blob drops a sample it does not hold") }
                return Int(index)
            }
        }
    }
}
