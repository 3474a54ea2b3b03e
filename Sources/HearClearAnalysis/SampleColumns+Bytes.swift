// Varints, zigzag deltas, bitmaps and doubles: the level histograms' bytes, and format 1 of the
// samples blob, which blobs stored before format 2 keep. Written by hand because no library here
// has them (Foundation has no varint; protobuf would be a whole dependency for four functions).

extension SampleColumns {
    /// Zigzag: 0, −1, 1, −2, … as 0, 1, 2, 3, …, so small magnitudes are small numbers.
    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    /// What `zigzag(_:)` made.
    static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }

    struct ByteWriter {
        var bytes: [UInt8] = []

        /// LEB128: seven bits a byte, low bits first.
        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }

        /// Zigzag, then a varint, so small magnitudes take one byte.
        mutating func signedVarint(_ value: Int64) { varint(SampleColumns.zigzag(value)) }
    }

    /// Reads what `ByteWriter` wrote; every read checks its bounds, as a blob may be damaged.
    struct ByteReader {
        private let bytes: [UInt8]
        private var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { position == bytes.count }
        var remaining: Int { bytes.count - position }
        var rest: ArraySlice<UInt8> { bytes[position...] }

        private static let truncated = Unreadable(description: "samples blob ends in the middle of its columns")

        mutating func byte() throws(Unreadable) -> UInt8 {
            guard position < bytes.count else { throw Self.truncated }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func varint() throws(Unreadable) -> UInt64 {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 7) {
                let byte = try byte()
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
            }
            throw Unreadable(description: "samples blob holds a number longer than 64 bits")
        }

        /// A count of things still to read: never more than bytes are left, so a damaged count
        /// cannot ask for memory the blob could not fill.
        mutating func count() throws(Unreadable) -> Int {
            let value = try varint()
            guard value <= UInt64(remaining) * 8 else { throw Self.truncated }
            return Int(value)
        }

        mutating func deltas(count: Int) throws(Unreadable) -> [Int] {
            var values: [Int] = []
            values.reserveCapacity(min(count, remaining))
            var previous = 0
            for _ in 0..<count {
                previous = previous &+ Int(truncatingIfNeeded: try signedVarint())
                values.append(previous)
            }
            return values
        }

        /// What `ByteWriter.signedVarint` wrote.
        mutating func signedVarint() throws(Unreadable) -> Int64 { SampleColumns.unzigzag(try varint()) }

        mutating func double() throws(Unreadable) -> Double {
            guard remaining >= 8 else { throw Self.truncated }
            var bits: UInt64 = 0
            for offset in 0..<8 { bits |= UInt64(bytes[position + offset]) << (8 * offset) }
            position += 8
            return Double(bitPattern: bits)
        }

        mutating func bitmap(count: Int) throws(Unreadable) -> [Bool] {
            guard remaining >= (count + 7) / 8 else { throw Self.truncated }
            defer { position += (count + 7) / 8 }
            return (0..<count).map { index in bytes[position + index / 8] & (1 << (index % 8)) != 0 }
        }
    }
}
