/// What one column's numbers have looked like so far, as probabilities for `RangeEncoder`: a number
/// is coded as its size class (how many bits it has: 0, 1, 2–3, 4–7, …, in unary, each step a
/// learned bit) and then the bits below its leading one (the top two learned, the rest even).
/// Learning the size class apart after small and after large numbers (a level that just jumped
/// tends to jump again) cost more than it saved on a check-in of 300 seconds, on the meter's
/// seconds of speech and music too (`hearclear-bench --only wire`), so there is one set.
///
/// Encoding and decoding walk the same steps, so a model fresh on both sides stays the same on both.
struct IntegerModel {
    /// The largest size class a number of 62 bits has; anything larger is a damaged stream.
    static let largestSize = 62

    // Inline, not arrays: a model is made for every column of every check-in, and arrays cost
    // two allocations per column and a uniqueness check at each bit (`swift_isUniquelyReferenced`
    // alone was 0.8 % of the server's samples under the ingest case, `perf`).
    /// The unary bits of the size classes; classes past the last share its probabilities.
    private var sizeBits = InlineArray<24, AdaptiveBit>(repeating: AdaptiveBit())
    /// Three per size class (the first bit below the leading one; the second, by the first).
    private var leadingBits = InlineArray<189, AdaptiveBit>(repeating: AdaptiveBit())
    private static var sizeSteps: Int { InlineArray<24, AdaptiveBit>.count }

    init() {}

    /// A signed number as zigzag, so small magnitudes are small.
    mutating func encode(signed value: Int, to encoder: inout RangeEncoder) {
        encode(SampleColumns.zigzag(Int64(value)), to: &encoder)
    }

    mutating func decodeSigned(from decoder: inout RangeDecoder) throws(SampleColumns.Unreadable) -> Int {
        Int(truncatingIfNeeded: SampleColumns.unzigzag(try decode(from: &decoder)))
    }

    mutating func encode(_ value: UInt64, to encoder: inout RangeEncoder) {
        precondition(value < 1 << Self.largestSize, "a column's number beyond 62 bits")
        let shifted = value + 1
        let size = 63 - shifted.leadingZeroBitCount
        for step in 0..<size { encoder.bit(true, &sizeBits[min(step, Self.sizeSteps - 1)]) }
        encoder.bit(false, &sizeBits[min(size, Self.sizeSteps - 1)])
        if size >= 1 {
            let first = (shifted >> UInt64(size - 1)) & 1
            encoder.bit(first == 1, &leadingBits[size * 3])
            if size >= 2 {
                encoder.bit((shifted >> UInt64(size - 2)) & 1 == 1, &leadingBits[size * 3 + 1 + Int(first)])
                encoder.bits(shifted, count: size - 2)
            }
        }
    }

    mutating func decode(from decoder: inout RangeDecoder) throws(SampleColumns.Unreadable) -> UInt64 {
        var size = 0
        while decoder.bit(&sizeBits[min(size, Self.sizeSteps - 1)]) {
            size += 1
            guard size <= Self.largestSize else { throw SampleColumns.Unreadable(description: "samples blob holds a number longer than 62 bits") }
        }
        var shifted: UInt64 = 1
        if size >= 1 {
            let first: UInt64 = decoder.bit(&leadingBits[size * 3]) ? 1 : 0
            shifted = shifted << 1 | first
            if size >= 2 {
                shifted = shifted << 1 | (decoder.bit(&leadingBits[size * 3 + 1 + Int(first)]) ? 1 : 0)
                shifted = shifted << UInt64(size - 2) | decoder.bits(count: size - 2)
            }
        }
        return shifted - 1
    }
}
