import Foundation

extension UUID {
    /// A version 7 UUID (RFC 9562): the milliseconds since 1970 of `date` in its first 48 bits, then
    /// 74 random bits. A check-in's id is one, taken at its start: a store's unique index on the ids
    /// then grows at its end, as the check-ins arrive, instead of at a random page of a large index
    /// for every upload (docs/profiling.md, Ingest, step 24). Foundation makes only version 4.
    public init<Random: RandomNumberGenerator>(timeOrderedAt date: Date, using random: inout Random) {
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
        let high = milliseconds << 16 | 0x7000 | random.next() & 0x0FFF
        let low = random.next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        self.init(high: high, low: low)
    }

    /// A version 7 UUID at `date` from the system's random generator.
    public init(timeOrderedAt date: Date) {
        var random = SystemRandomNumberGenerator()
        self.init(timeOrderedAt: date, using: &random)
    }

    /// A version 7 UUID at `date` whose other bits come from `name` instead of at random: the same
    /// name at the same moment is the same id, so that a recording checked in twice is one check-in
    /// to the server, which keeps a check-in once by its id.
    public init(timeOrderedAt date: Date, naming name: String) {
        var bits = NameBits(bytes: Array(name.utf8))
        self.init(timeOrderedAt: date, using: &bits)
    }

    /// The milliseconds since 1970 a version 7 UUID starts with; nil for other versions.
    public var timeOrderedMilliseconds: UInt64? {
        let bytes = withUnsafeBytes(of: uuid) { Array($0) }
        guard bytes[6] >> 4 == 7 else { return nil }
        return bytes[0..<6].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The UUID whose 128 bits are `high` then `low`, each most significant byte first.
    public init(high: UInt64, low: UInt64) {
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        self.init(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

/// Bits drawn from a name (`UUID(timeOrderedAt:naming:)`): the 64-bit FNV-1a hash of a byte that
/// counts the draws, then the name's bytes. Written here: Swift's `Hasher` is seeded anew in every
/// process, and the client links no hash library.
private struct NameBits: RandomNumberGenerator {
    let bytes: [UInt8]
    private var draws: UInt8 = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func next() -> UInt64 {
        draws &+= 1
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in [draws] + bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }
}
