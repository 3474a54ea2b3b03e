/// A binary adaptive range coder, the one LZMA uses: each bit is coded with a probability that
/// learns from the bits coded with it before, so a column's values cost what their distribution
/// says (a level that moves by ±0.3 dB costs about 3 bits, not deflate's byte or more). Written by
/// hand because no library here has an entropy coder for values one at a time: zlib codes bytes
/// with Huffman tables of a whole block, and format 1 (varints, then zlib) cost 8.62 bytes a
/// second on the bench's made-up seconds where this coder costs 7.21 (`hearclear-bench --size
/// full --only wire`; docs/storage.md, "The samples blob").
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

    // Inlined, and `normalize` called only when a byte is due: most bits shift none out, and a
    // call for each bit was a tenth of the encoding's time.
    @inline(__always)
    mutating func bit(_ bit: Bool, _ probability: inout AdaptiveBit) {
        let bound = (range >> AdaptiveBit.precision) &* probability.zero
        if bit {
            low &+= UInt64(bound)
            range &-= bound
        } else {
            range = bound
        }
        probability.update(bit)
        if range < Self.top { normalize() }
    }

    /// The low `count` bits of `value`, high first, each as likely 0 as 1 (no model learns them),
    /// up to `evenChunk` at a time: the range split into 2^n equal parts at once (LZMA splits it
    /// bit by bit: 2.2 % of the server's CPU under ingest against 1.0 %, `perf`).
    mutating func bits(_ value: UInt64, count: Int) {
        var remaining = count
        while remaining > 0 {
            let chunk = min(remaining, Self.evenChunk)
            remaining -= chunk
            range >>= UInt32(chunk)
            low &+= UInt64(range) &* ((value >> UInt64(remaining)) & ((1 << UInt64(chunk)) - 1))
            if range < Self.top { normalize() }
        }
    }

    /// At most this many even bits share one split of the range: with the range at least 2^24
    /// before, each part is still at least 256 wide.
    static let evenChunk = 16

    /// The coded bytes. The coder's first byte is always 0 and is left out (`RangeDecoder` knows).
    mutating func finish() -> [UInt8] {
        for _ in 0..<5 { shiftLow() }
        return Array(bytes.dropFirst())
    }

    @inline(never)
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
