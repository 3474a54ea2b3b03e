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
