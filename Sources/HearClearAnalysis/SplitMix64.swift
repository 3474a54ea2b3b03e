import Foundation
import HearClearCore

/// A small, fast, seedable random number generator (SplitMix64), the same on every platform, so a
/// seed names one data set: for reproducible demos, benchmarks and synthetic check-ins.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A version 4 UUID from this generator.
    public mutating func uuid() -> UUID {
        UUID(high: next() & ~0xF000 | 0x4000, low: next() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000)
    }

    /// In [low, high).
    public mutating func uniform(_ low: Double = 0, _ high: Double = 1) -> Double {
        low + Double(next() >> 11) / Double(1 << 53) * (high - low)
    }

    /// From the standard normal distribution (Box–Muller).
    public mutating func normal() -> Double {
        let u = max(uniform(), .leastNonzeroMagnitude)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * uniform())
    }
}
