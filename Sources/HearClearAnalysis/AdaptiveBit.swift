/// The probability that the next bit of one kind is 0, learned from the bits of that kind so far:
/// at first as their plain frequency (after n bits, each new one moves it by 1/(n+2)), so a model
/// is sharp after a minute of a check-in; then by a fixed 1/64, so it follows a sound that changes.
/// A check-in of 300 seconds is too short to learn at a fixed rate from the start (LZMA's 1/32
/// cost 0.47 byte a second more on the bench's made-up seconds).
struct AdaptiveBit {
    /// In 1/4096ths; never 0 nor 4096, so that either bit stays possible.
    private(set) var zero: UInt32 = 2048
    private var seen: UInt32 = 0

    static let precision: UInt32 = 12
    private static let learningBits: UInt32 = 60
    private static let followingShift: UInt32 = 6

    @inline(__always)
    mutating func update(_ bit: Bool) {
        if seen < Self.learningBits {
            seen += 1
            if bit { zero -= zero / (seen + 1) } else { zero += (4096 - zero) / (seen + 1) }
        } else if bit {
            zero -= zero >> Self.followingShift
        } else {
            zero += (4096 - zero) >> Self.followingShift
        }
    }
}
