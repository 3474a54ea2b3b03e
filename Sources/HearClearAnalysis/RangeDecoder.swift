/// Reads what `RangeEncoder` wrote. Past the end of its bytes it reads zeros and remembers it, so a
/// damaged or cut stream decodes to something wrong, never out of bounds; `isAtEnd` then tells.
struct RangeDecoder {
    private let bytes: ArraySlice<UInt8>
    private var position: Int
    private var range: UInt32 = 0xFFFF_FFFF
    private var code: UInt32 = 0

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
        // The encoder's first byte, always 0, is not stored: the code starts with the next four.
        for _ in 0..<4 { code = code << 8 | UInt32(next()) }
    }

    /// Whether every byte was read and none beyond: a stream decoded exactly as it was written.
    var isAtEnd: Bool { position == bytes.endIndex }

    @inline(__always)
    mutating func bit(_ probability: inout AdaptiveBit) -> Bool {
        let bound = (range >> AdaptiveBit.precision) &* probability.zero
        let bit = code >= bound
        if bit {
            code &-= bound
            range &-= bound
        } else {
            range = bound
        }
        probability.update(bit)
        if range < RangeEncoder.top { normalize() }
        return bit
    }

    /// What `RangeEncoder.bits` wrote; a damaged stream may point past the last part, which
    /// reads as the last part.
    mutating func bits(count: Int) -> UInt64 {
        var value: UInt64 = 0, remaining = count
        while remaining > 0 {
            let chunk = min(remaining, RangeEncoder.evenChunk)
            remaining -= chunk
            range >>= UInt32(chunk)
            let part = min(code / range, (1 << UInt32(chunk)) - 1)
            code &-= part &* range
            value = value << UInt64(chunk) | UInt64(part)
            if range < RangeEncoder.top { normalize() }
        }
        return value
    }

    @inline(never)
    private mutating func normalize() {
        while range < RangeEncoder.top {
            range <<= 8
            code = code << 8 | UInt32(next())
        }
    }

    private mutating func next() -> UInt8 {
        defer { position += 1 }
        return position < bytes.endIndex ? bytes[position] : 0
    }
}
