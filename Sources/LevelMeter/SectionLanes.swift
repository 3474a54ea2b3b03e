/// Second-order sections (transposed direct form II) running side by side, one filter per SIMD
/// lane, so one pass over the audio filters several ways for little more than the cost of one.
/// Concrete vector types rather than generic code: the standard library's fast SIMD arithmetic is
/// chosen for concrete types only. Where every lane's numerator has the same fixed shape, it is
/// applied with additions and the gains are carried elsewhere, which saves the multiplications a
/// general section spends on it: this pass is most of `hearclear analyze`'s time.

/// Two lanes in Double (the chosen weighting and C), a general section. Their poles near z = 1
/// (20.6 Hz at 48 kHz) need more precision than Float gives.
struct WeightingLanes: Sendable {
    private var b0, b1, b2, a1, a2: SIMD2<Double>
    private var z1 = SIMD2<Double>(), z2 = SIMD2<Double>()

    init(_ first: Biquad, _ second: Biquad) {
        b0 = SIMD2(first.b0, second.b0)
        b1 = SIMD2(first.b1, second.b1)
        b2 = SIMD2(first.b2, second.b2)
        a1 = SIMD2(first.a1, second.a1)
        a2 = SIMD2(first.a2, second.a2)
    }

    @inline(__always)
    mutating func process(_ x: SIMD2<Double>) -> SIMD2<Double> {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }
}

/// Two Double lanes of a section whose numerator is 1 ∓ 2z⁻¹ + z⁻² in both: a double zero at DC
/// (`atDC`) or at Nyquist.
struct DoubleZeroLanes: Sendable {
    private let atDC: Bool
    private let a1, a2: SIMD2<Double>
    private var z1 = SIMD2<Double>(), z2 = SIMD2<Double>()

    init(_ first: Biquad, _ second: Biquad, atDC: Bool) {
        let numerator = atDC ? (1.0, -2.0, 1.0) : (1.0, 2.0, 1.0)
        for section in [first, second] {
            precondition(abs(section.b0 - numerator.0) < 1e-12 && abs(section.b1 - numerator.1) < 1e-12 && abs(section.b2 - numerator.2) < 1e-12)
        }
        self.atDC = atDC
        a1 = SIMD2(first.a1, second.a1)
        a2 = SIMD2(first.a2, second.a2)
    }

    @inline(__always)
    mutating func process(_ x: SIMD2<Double>) -> SIMD2<Double> {
        let twice = x + x
        let y = x + z1
        z1 = (atDC ? z2 - twice : z2 + twice) - a1 * y
        z2 = x - a2 * y
        return y
    }
}

/// Four Float lanes, the octave bands, of a band-pass section whose numerator is g·(1 − z⁻²): the
/// gains g are left to `BandLanes.energyGain`. The lowest pole (355 Hz) sits far enough from z = 1
/// that Float's precision costs nothing measurable (the band tests compare with Double references),
/// and four Float lanes fit one SSE register where Double would take two.
struct BandLanes: Sendable {
    private let a1, a2: SIMD4<Float>
    /// The negated states of the transposed direct form II, which spares a negation per sample.
    private var u = SIMD4<Float>(), w = SIMD4<Float>()

    init(_ lanes: [Biquad]) {
        precondition(lanes.count == 4)
        for section in lanes { precondition(section.b1 == 0 && abs(section.b2 + section.b0) <= 1e-12 * abs(section.b0)) }
        a1 = SIMD4(lanes.map { Float($0.a1) })
        a2 = SIMD4(lanes.map { Float($0.a2) })
    }

    /// What the sections' gains make of the energies of their unscaled outputs, per band.
    static func energyGain(_ bands: [[Biquad]]) -> SIMD4<Double> {
        SIMD4(bands.map { sections in sections.reduce(1.0) { $0 * $1.b0 * $1.b0 } })
    }

    /// y = x + z1, z1 ← −a1·y + z2, z2 ← −x − a2·y, with u = −z1 and w = −z2.
    @inline(__always)
    mutating func process(_ x: SIMD4<Float>) -> SIMD4<Float> {
        let y = x - u
        u = a1 * y + w
        w = x + a2 * y
        return y
    }
}
