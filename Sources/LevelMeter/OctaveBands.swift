import Foundation

/// The octave bands of ISO 9921's speech interference level, as IEC 61260-1:2014 defines them:
/// base-10 midband frequencies fm = 1000·10^(3k/10) Hz (501.2, 1000, 1995 and 3981 Hz, named 500,
/// 1k, 2k and 4k) and band edges at fm·10^(±3/20).
public enum OctaveBand: Int, Sendable, CaseIterable {
    case hz500, hz1000, hz2000, hz4000

    /// The nominal midband frequency, as bands are named.
    public var nominal: Int { [500, 1000, 2000, 4000][rawValue] }

    /// The exact midband frequency, Hz.
    public var midband: Double { 1000 * pow(10, 3 * Double(rawValue - 1) / 10) }

    /// The upper band edge, Hz (the lower one is midband² / upper).
    public var upperEdge: Double { midband * pow(10, 3.0 / 20) }

    /// The lowest sample rate that holds every band: the 4 kHz band reaches 5.62 kHz, above the
    /// Nyquist limit of 8 kHz audio.
    public static let minimumSampleRate = Int((2 * OctaveBand.hz4000.upperEdge).rounded(.up))

    /// A sixth-order Butterworth band-pass (the third-order low-pass prototype moved to the band),
    /// taken to the sample rate by the bilinear transform with its band edges prewarped so they fall
    /// at −3 dB exactly, in three sections normalised to 0 dB at the exact midband frequency. Its
    /// relative attenuation meets the IEC 61260-1:2014 class 1 limits at 44.1 and 48 kHz (tested
    /// against the standard's table in LevelMeterTests).
    func sections(sampleRate: Double) -> [Biquad] {
        precondition(Double(sampleRate) > 2 * upperEdge, "the \(nominal) Hz band needs a sample rate above \(2 * upperEdge) Hz")
        let prewarp = { (frequency: Double) in 2 * sampleRate * tan(Double.pi * frequency / sampleRate) }
        let lower = prewarp(midband * midband / upperEdge), upper = prewarp(upperEdge)
        let bandwidth = upper - lower, centre2 = lower * upper
        // The prototype's poles: −1 and −1/2 ± j√3/2. Each pole p of the low-pass moves to the two
        // roots of s² − p·B·s + ω0² = 0.
        let real = Complex(-1, 0), upperHalf = Complex(-0.5, 3.0.squareRoot() / 2)
        var sections: [Biquad] = []
        // The real pole: s² + B·s + ω0², one section with numerator B·s.
        sections.append(Biquad(analogNumerator: (0, bandwidth, 0), denominator: (1, -real.re * bandwidth, centre2), sampleRate: sampleRate))
        // The complex pair: its two roots in the upper half plane, each with its conjugate, make two sections.
        let pb = upperHalf * bandwidth
        let root = (pb * pb - Complex(4 * centre2, 0)).squareRoot()
        for pole in [(pb + root) * 0.5, (pb - root) * 0.5] {
            sections.append(Biquad(analogNumerator: (0, bandwidth, 0), denominator: (1, -2 * pole.re, pole.re * pole.re + pole.im * pole.im), sampleRate: sampleRate))
        }
        sections[0] = sections[0].scaled(by: 1 / sections.magnitude(at: midband, sampleRate: sampleRate))
        return sections
    }
}

/// Just enough complex arithmetic to place the band-pass poles (Foundation has none).
private struct Complex {
    var re, im: Double

    init(_ re: Double, _ im: Double) {
        (self.re, self.im) = (re, im)
    }

    static func + (a: Complex, b: Complex) -> Complex { Complex(a.re + b.re, a.im + b.im) }
    static func - (a: Complex, b: Complex) -> Complex { Complex(a.re - b.re, a.im - b.im) }
    static func * (a: Complex, b: Complex) -> Complex { Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re) }
    static func * (a: Complex, b: Double) -> Complex { Complex(a.re * b, a.im * b) }

    /// The principal square root.
    func squareRoot() -> Complex {
        let modulus = (re * re + im * im).squareRoot()
        let real = ((modulus + re) / 2).squareRoot()
        let imaginary = ((modulus - re) / 2).squareRoot()
        return Complex(real, im < 0 ? -imaginary : imaginary)
    }
}
