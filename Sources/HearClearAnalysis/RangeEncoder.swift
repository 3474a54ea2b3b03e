/// A binary adaptive range coder, the one LZMA uses: each bit is coded with a probability that
/// learns from the bits coded with it before, so a column's values cost what their distribution
/// says (a level that moves by ±0.3 dB costs about 3 bits, not deflate's byte or more). Written by
/// hand because no library here has an entropy coder for values one at a time: zlib codes bytes
/// with Huffman tables of a whole block, which on a check-in's few thousand bytes cost about a
/// fifth more than the values' own entropy (docs/storage.md, "The samples blob").
///
/// `RangeDecoder` reads what this writes, bit for bit with the same probabilities.
struct RangeEncoder {
    static let top: UInt32 = 1 << 24

    private var low: UInt64 = 0
    private var range: UInt32 = 0xFFFF_FFFF
    /// The byte not yet written (a carry may still reach it) and how many 0xFF bytes follow it.
    private var cache: UInt8 = 0
    private var pending = 1
    private var bytes: [UInt8] = []

    init() {}

    mutating func bit(_ bit: Bool, _ probability: inout AdaptiveBit) {
        let bound = (range >> AdaptiveBit.precision) &* probability.zero
        if bit {
            low &+= UInt64(bound)
            range &-= bound
        } else {
            range = bound
        }
        probability.update(bit)
        normalize()
    }

    /// The low `count` bits of `value`, high first, each as likely 0 as 1 (no model learns them).
    mutating func bits(_ value: UInt64, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            range >>= 1
            if (value >> UInt64(shift)) & 1 == 1 { low &+= UInt64(range) }
            normalize()
        }
    }

    /// The coded bytes. The coder's first byte is always 0 and is left out (`RangeDecoder` knows).
    mutating func finish() -> [UInt8] {
        for _ in 0..<5 { shiftLow() }
        return Array(bytes.dropFirst())
    }

    private mutating func normalize() {
        while range < Self.top {
            range <<= 8
            shiftLow()
        }
    }

    private mutating func shiftLow() {
        if low < 0xFF00_0000 || low >= 1 << 32 {
            let carry = UInt8(truncatingIfNeeded: low >> 32)
            var byte = cache
            repeat {
                bytes.append(byte &+ carry)
                byte = 0xFF
                pending -= 1
            } while pending != 0
            cache = UInt8(truncatingIfNeeded: low >> 24)
        }
        pending += 1
        low = (low & 0x00FF_FFFF) << 8
    }
}
