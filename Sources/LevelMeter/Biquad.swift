import Foundation

/// A second-order section as designed, in Double: its coefficients, the bilinear transform that
/// makes it from an analog section, and its magnitude response. The meter runs sections side by
/// side in SIMD lanes (`SectionLanes`); this type is where they are made and checked.
struct Biquad: Sendable {
    var b0, b1, b2, a1, a2: Double

    init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
    }

    static let passThrough = Biquad(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

    /// The bilinear transform of the analog section (n0·s² + n1·s + n2) / (d0·s² + d1·s + d2).
    init(analogNumerator n: (Double, Double, Double), denominator d: (Double, Double, Double), sampleRate: Double) {
        let k = 2 * sampleRate, k2 = k * k
        let a0 = d.0 * k2 + d.1 * k + d.2
        self.init(
            b0: (n.0 * k2 + n.1 * k + n.2) / a0, b1: (2 * n.2 - 2 * n.0 * k2) / a0, b2: (n.0 * k2 - n.1 * k + n.2) / a0,
            a1: (2 * d.2 - 2 * d.0 * k2) / a0, a2: (d.0 * k2 - d.1 * k + d.2) / a0)
    }

    /// A peaking section (RBJ audio-EQ cookbook).
    static func peaking(gainDB: Double, centre: Double, q: Double, sampleRate: Double) -> Biquad {
        let a = pow(10, gainDB / 40)
        let w = 2 * Double.pi * centre / sampleRate
        let alpha = sin(w) / (2 * q)
        let a0 = 1 + alpha / a
        return Biquad(
            b0: (1 + alpha * a) / a0, b1: -2 * cos(w) / a0, b2: (1 - alpha * a) / a0,
            a1: -2 * cos(w) / a0, a2: (1 - alpha / a) / a0)
    }

    /// The same section with its gain multiplied by `factor`.
    func scaled(by factor: Double) -> Biquad {
        Biquad(b0: b0 * factor, b1: b1 * factor, b2: b2 * factor, a1: a1, a2: a2)
    }

    /// e^(−jω) and e^(−2jω) at one frequency: the weighting's design evaluates thousands of
    /// candidate sections at the same frequencies, and the trigonometry would be most of its time.
    struct ResponsePoint {
        let c1, s1, c2, s2: Double

        init(frequency: Double, sampleRate: Double) {
            let w = 2 * Double.pi * frequency / sampleRate
            (c1, s1, c2, s2) = (cos(w), -sin(w), cos(2 * w), -sin(2 * w))
        }
    }

    /// |H(e^{jω})| at `frequency`.
    func magnitude(at frequency: Double, sampleRate: Double) -> Double {
        magnitude(at: ResponsePoint(frequency: frequency, sampleRate: sampleRate))
    }

    func magnitude(at point: ResponsePoint) -> Double {
        let numerator = (b0 + b1 * point.c1 + b2 * point.c2, b1 * point.s1 + b2 * point.s2)
        let denominator = (1 + a1 * point.c1 + a2 * point.c2, a1 * point.s1 + a2 * point.s2)
        return sqrt((numerator.0 * numerator.0 + numerator.1 * numerator.1) / (denominator.0 * denominator.0 + denominator.1 * denominator.1))
    }
}

extension [Biquad] {
    /// The cascade's magnitude response at `frequency`.
    func magnitude(at frequency: Double, sampleRate: Double) -> Double {
        reduce(1.0) { $0 * $1.magnitude(at: frequency, sampleRate: sampleRate) }
    }
}
