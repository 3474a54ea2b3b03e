import Foundation

/// A biquad section, transposed direct form II, in Double: the A-weighting poles near z = 1
/// (20.6 Hz at 48 kHz) need more precision than Float gives.
struct Biquad: Sendable {
    var b0, b1, b2, a1, a2: Double
    private var z1 = 0.0, z2 = 0.0

    init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
    }

    /// The bilinear transform of the analog section (n0·s² + n1·s + n2) / (d0·s² + d1·s + d2).
    init(analogNumerator n: (Double, Double, Double), denominator d: (Double, Double, Double), sampleRate: Double) {
        let k = 2 * sampleRate, k2 = k * k
        let a0 = d.0 * k2 + d.1 * k + d.2
        self.init(
            b0: (n.0 * k2 + n.1 * k + n.2) / a0, b1: (2 * n.2 - 2 * n.0 * k2) / a0, b2: (n.0 * k2 - n.1 * k + n.2) / a0,
            a1: (2 * d.2 - 2 * d.0 * k2) / a0, a2: (d.0 * k2 - d.1 * k + d.2) / a0)
    }

    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }

    /// |H(e^{jω})| at `frequency`.
    func magnitude(at frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        let (c1, s1, c2, s2) = (cos(w), -sin(w), cos(2 * w), -sin(2 * w))
        let numerator = (b0 + b1 * c1 + b2 * c2, b1 * s1 + b2 * s2)
        let denominator = (1 + a1 * c1 + a2 * c2, a1 * s1 + a2 * s2)
        return sqrt((numerator.0 * numerator.0 + numerator.1 * numerator.1) / (denominator.0 * denominator.0 + denominator.1 * denominator.1))
    }
}

/// The A-weighting filter of IEC 61672-1: the analog design (poles at 20.6, 107.7, 737.9 and
/// 12194 Hz) taken to the sample rate by the bilinear transform, plus one correction section.
///
/// The bilinear transform squeezes the analog frequency axis into the digital one, so a plain design
/// reads low near Nyquist (−1.2 dB at 10 kHz and −6.4 dB at 16 kHz at 48 kHz). The correction is a
/// peaking section fitted, when the filter is made, to the ratio between the analog response and the
/// plain digital one from 1 kHz to 16 kHz; it brings the error to a few hundredths of a
/// dB up to 10 kHz and well inside class 1 tolerances up to 16 kHz at 44.1 and 48 kHz (see
/// docs/levels.md). Filter state persists across calls, so intervals are seamless.
public struct AWeightingFilter: Sendable {
    // Four sections held as separate values, not an array, so the inner loop keeps every
    // coefficient and state in registers. Without a correction the fourth passes samples through.
    private var first: Biquad
    private var second: Biquad
    private var third: Biquad
    private var correction: Biquad
    public let sampleRate: Double

    static let poles = (f1: 20.598997, f2: 107.65265, f3: 737.86223, f4: 12194.217)
    static let passThrough = Biquad(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
        var sections = Self.bilinearSections(sampleRate: sampleRate)
        sections.append(Self.fitCorrection(plain: sections, sampleRate: sampleRate) ?? Self.passThrough)
        // Normalise to exactly 0 dB at 1 kHz.
        let gain = sections.reduce(1.0) { $0 * $1.magnitude(at: 1000, sampleRate: sampleRate) }
        sections[0].b0 /= gain
        sections[0].b1 /= gain
        sections[0].b2 /= gain
        (first, second, third, correction) = (sections[0], sections[1], sections[2], sections[3])
    }

    /// The analog A-weighting response in dB at `frequency` (0 dB at 1 kHz).
    public static func analogResponse(at frequency: Double) -> Double {
        let f2 = frequency * frequency
        let (p1, p2, p3, p4) = (poles.f1 * poles.f1, poles.f2 * poles.f2, poles.f3 * poles.f3, poles.f4 * poles.f4)
        let ra = p4 * f2 * f2 / ((f2 + p1) * sqrt((f2 + p2) * (f2 + p3)) * (f2 + p4))
        return 20 * log10(ra) + 2.0
    }

    /// The weighting this filter applies at `frequency`, in dB.
    public func response(at frequency: Double) -> Double {
        20 * log10([first, second, third, correction].reduce(1.0) { $0 * $1.magnitude(at: frequency, sampleRate: sampleRate) })
    }

    /// Filters `samples`, returning the sum of squares and the largest magnitude of the output.
    public mutating func accumulate(_ samples: UnsafeBufferPointer<Float>) -> (sumOfSquares: Double, largest: Double) {
        var (a, b, c, d) = (first, second, third, correction)
        var sum = 0.0, largest = 0.0
        for sample in samples {
            let y = d.process(c.process(b.process(a.process(Double(sample)))))
            sum += y * y
            largest = max(largest, abs(y))
        }
        (first, second, third, correction) = (a, b, c, d)
        return (sum, largest)
    }

    private static func bilinearSections(sampleRate: Double) -> [Biquad] {
        let w1 = 2 * Double.pi * poles.f1, w2 = 2 * Double.pi * poles.f2
        let w3 = 2 * Double.pi * poles.f3, w4 = 2 * Double.pi * poles.f4
        return [
            // s² / (s + ω4)²
            Biquad(analogNumerator: (1, 0, 0), denominator: (1, 2 * w4, w4 * w4), sampleRate: sampleRate),
            // s² / (s + ω1)²
            Biquad(analogNumerator: (1, 0, 0), denominator: (1, 2 * w1, w1 * w1), sampleRate: sampleRate),
            // 1 / ((s + ω2)(s + ω3))
            Biquad(analogNumerator: (0, 0, 1), denominator: (1, w2 + w3, w2 * w3), sampleRate: sampleRate),
        ]
    }

    /// A peaking section (RBJ cookbook) whose gain, centre and width are searched, coarse then fine,
    /// to minimise the largest error between the analog response and the plain digital one over
    /// 1 kHz … 16 kHz (or 0.8 × Nyquist at low rates). `nil` when the plain design is already within 0.05 dB there (high rates).
    private static func fitCorrection(plain: [Biquad], sampleRate: Double) -> Biquad? {
        let nyquist = sampleRate / 2
        let top = min(16_000, 0.8 * nyquist)
        let frequencies = stride(from: log10(1000.0), through: log10(top), by: 0.01).map { pow(10, $0) }
        // Class 1 tolerances widen above 10 kHz: errors there weigh half.
        let weights = frequencies.map { $0 <= 10_000 ? 1.0 : 0.5 }
        let plainAt1k = plain.reduce(1.0) { $0 * $1.magnitude(at: 1000, sampleRate: sampleRate) }
        let wanted = frequencies.map { frequency in
            analogResponse(at: frequency) - 20 * log10(plain.reduce(1.0) { $0 * $1.magnitude(at: frequency, sampleRate: sampleRate) } / plainAt1k)
        }
        guard let largest = wanted.map(abs).max(), largest > 0.05 else { return nil }

        func error(_ section: Biquad) -> Double {
            let at1k = 20 * log10(section.magnitude(at: 1000, sampleRate: sampleRate))
            var worst = 0.0
            for (index, frequency) in frequencies.enumerated() {
                let got = 20 * log10(section.magnitude(at: frequency, sampleRate: sampleRate)) - at1k
                worst = max(worst, weights[index] * abs(got - wanted[index]))
            }
            return worst
        }
        var best = (gain: 0.0, centre: 0.8 * nyquist, q: 0.7)
        var bestError = error(peaking(gainDB: best.gain, centre: best.centre, q: best.q, sampleRate: sampleRate))
        var span = (gain: 12.0, centre: 0.5 * nyquist, q: 2.0)
        for _ in 0..<12 {
            let current = best
            for gainStep in -4...4 {
                for centreStep in -4...4 {
                    for qStep in -4...4 {
                        let gain = current.gain + Double(gainStep) * span.gain / 4
                        let centre = min(0.98 * nyquist, max(1000, current.centre + Double(centreStep) * span.centre / 4))
                        let q = max(0.1, current.q + Double(qStep) * span.q / 4)
                        let candidate = error(peaking(gainDB: gain, centre: centre, q: q, sampleRate: sampleRate))
                        if candidate < bestError {
                            bestError = candidate
                            best = (gain, centre, q)
                        }
                    }
                }
            }
            span = (span.gain / 2, span.centre / 2, span.q / 2)
        }
        return peaking(gainDB: best.gain, centre: best.centre, q: best.q, sampleRate: sampleRate)
    }

    private static func peaking(gainDB: Double, centre: Double, q: Double, sampleRate: Double) -> Biquad {
        let a = pow(10, gainDB / 40)
        let w = 2 * Double.pi * centre / sampleRate
        let alpha = sin(w) / (2 * q)
        let a0 = 1 + alpha / a
        return Biquad(
            b0: (1 + alpha * a) / a0, b1: -2 * cos(w) / a0, b2: (1 - alpha * a) / a0,
            a1: -2 * cos(w) / a0, a2: (1 - alpha / a) / a0)
    }
}
