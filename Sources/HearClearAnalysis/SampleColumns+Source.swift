// Where the decoder reads a payload's parts from: the structure of a blob is the same in both
// formats, only how each part is kept differs.

extension SampleColumns {
    protocol ColumnSource {
        /// Whether a level column of finer steps than the A level's is coded less the A level
        /// (format 2), or only one of the same steps (format 1).
        static var referencesFinerSteps: Bool { get }
        var isAtEnd: Bool { get }
        mutating func count() throws(Unreadable) -> Int
        mutating func flags() throws(Unreadable) -> UInt8
        /// 0 for a column of doubles, else the decimals of its whole steps.
        mutating func columnKind() throws(Unreadable) -> UInt8
        mutating func double() throws(Unreadable) -> Double
        mutating func bitmap(count: Int) throws(Unreadable) -> [Bool]
        /// A column of whole steps, each plus `reference`'s where given.
        mutating func steps(count: Int, reference: [Int]?) throws(Unreadable) -> [Int]
        /// The dropped samples, each below `count`, ascending.
        mutating func droppedIndices(below count: Int) throws(Unreadable) -> [Int]
    }
}

/// Format 1: the payload's bytes as `ByteWriter` wrote them, after zlib inflated them.
extension SampleColumns.ByteReader: SampleColumns.ColumnSource {
    static var referencesFinerSteps: Bool { false }

    mutating func flags() throws(SampleColumns.Unreadable) -> UInt8 { try byte() }

    mutating func columnKind() throws(SampleColumns.Unreadable) -> UInt8 { try byte() }

    /// Each step delta-coded along the check-in, as a difference from `reference` where given.
    mutating func steps(count: Int, reference: [Int]?) throws(SampleColumns.Unreadable) -> [Int] {
        let steps = try deltas(count: count)
        return reference.map { zip(steps, $0).map { $0 &+ $1 } } ?? steps
    }

    mutating func droppedIndices(below count: Int) throws(SampleColumns.Unreadable) -> [Int] {
        var index: UInt64 = 0
        return try (0..<(try self.count())).map { _ throws(SampleColumns.Unreadable) in
            index = index &+ (try varint())
            guard index < UInt64(count) else { throw SampleColumns.Unreadable(description: "samples blob drops a sample it does not hold") }
            return Int(index)
        }
    }
}
