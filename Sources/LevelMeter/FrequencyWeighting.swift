import Foundation

/// The A and C frequency weightings of IEC 61672-1 as digital filters: the analog designs (poles at
/// 20.6, 107.7, 737.9 and 12194 Hz for A; the outer two only for C) taken to the sample rate by the
/// bilinear transform, plus one correction section.
///
/// The bilinear transform squeezes the analog frequency axis into the digital one, so a plain design
/// reads low near Nyquist (A: −1.2 dB at 10 kHz and −6.4 dB at 16 kHz at 48 kHz). The correction is
/// a peaking section fitted, when the filter is made, to the ratio between the analog response and
/// the plain digital one from 1 kHz to 16 kHz; it brings the error to a few hundredths of a dB up to
/// 10 kHz and well inside class 1 tolerances up to 16 kHz at 44.1 and 48 kHz (see docs/levels.md).
enum WeightingCurve: Sendable, CaseIterable {
    case a, c

    static let poles = (f1: 20.598997, f2: 107.65265, f3: 737.86223, f4: 12194.217)

    /// The analog response in dB at `frequency` (0 dB at 1 kHz, to IEC 61672-1's normalisation
    /// constants: +2.000 dB for A, +0.062 dB for C).
    func analogResponse(at frequency: Double) -> Double {
        let f2 = frequency * frequency
        let (p1, p2, p3, p4) = (Self.poles.f1 * Self.poles.f1, Self.poles.f2 * Self.poles.f2, Self.poles.f3 * Self.poles.f3, Self.poles.f4 * Self.poles.f4)
        switch self {
        case .a:
            return 20 * log10(p4 * f2 * f2 / ((f2 + p1) * sqrt((f2 + p2) * (f2 + p3)) * (f2 + p4))) + 2.000
        case .c:
            return 20 * log10(p4 * f2 / ((f2 + p1) * (f2 + p4))) + 0.062
        }
    }

    /// Four sections, normalised to exactly 0 dB at 1 kHz. Both curves share the shape of the first
    /// two, which lets the meter run them cheaply side by side (`WeightingLanes`): the first has its
    /// zeros at DC, numerator exactly 1 − 2z⁻¹ + z⁻², the second at Nyquist, 1 + 2z⁻¹ + z⁻²; their
    /// gains are carried by the third. Sections a curve does not need pass samples through.
    func sections(sampleRate: Double) -> [Biquad] {
        var sections = bilinearSections(sampleRate: sampleRate)
        sections.append(fitCorrection(plain: sections, sampleRate: sampleRate) ?? .passThrough)
        while sections.count < 4 { sections.append(.passThrough) }
        let gain = sections[0].b0 * sections[1].b0
        sections[0] = sections[0].scaled(by: 1 / sections[0].b0)
        sections[1] = sections[1].scaled(by: 1 / sections[1].b0)
        sections[2] = sections[2].scaled(by: gain)
        sections[2] = sections[2].scaled(by: 1 / sections.magnitude(at: 1000, sampleRate: sampleRate))
        return sections
    }

    private func bilinearSections(sampleRate: Double) -> [Biquad] {
        let w1 = 2 * Double.pi * Self.poles.f1, w2 = 2 * Double.pi * Self.poles.f2
        let w3 = 2 * Double.pi * Self.poles.f3, w4 = 2 * Double.pi * Self.poles.f4
        let shared = [
            // s² / (s + ω1)²
            Biquad(analogNumerator: (1, 0, 0), denominator: (1, 2 * w1, w1 * w1), sampleRate: sampleRate),
            // 1 / (s + ω4)²
            Biquad(analogNumerator: (0, 0, 1), denominator: (1, 2 * w4, w4 * w4), sampleRate: sampleRate),
        ]
        switch self {
        case .a:
            // s² / ((s + ω2)(s + ω3))
            return shared + [Biquad(analogNumerator: (1, 0, 0), denominator: (1, w2 + w3, w2 * w3), sampleRate: sampleRate)]
        case .c:
            return shared
        }
    }

    /// A peaking section whose gain, centre and width are searched, coarse then fine, to minimise
    /// the largest error between the analog response and the plain digital one over 1 kHz … 16 kHz
    /// (or 0.8 × Nyquist at low rates). `nil` when the plain design is already within 0.05 dB there
    /// (high rates).
    private func fitCorrection(plain: [Biquad], sampleRate: Double) -> Biquad? {
        let nyquist = sampleRate / 2
        let top = min(16_000, 0.8 * nyquist)
        let frequencies = stride(from: log10(1000.0), through: log10(top), by: 0.01).map { pow(10, $0) }
        // Class 1 tolerances widen above 10 kHz: errors there weigh half.
        let weights = frequencies.map { $0 <= 10_000 ? 1.0 : 0.5 }
        let plainAt1k = plain.magnitude(at: 1000, sampleRate: sampleRate)
        let wanted = frequencies.map { frequency in
            analogResponse(at: frequency) - analogResponse(at: 1000)
                - 20 * log10(plain.magnitude(at: frequency, sampleRate: sampleRate) / plainAt1k)
        }
        guard let largest = wanted.map(abs).max(), largest > 0.05 else { return nil }

        let points = frequencies.map { Biquad.ResponsePoint(frequency: $0, sampleRate: sampleRate) }
        let point1k = Biquad.ResponsePoint(frequency: 1000, sampleRate: sampleRate)
        func error(_ section: Biquad) -> Double {
            let at1k = 20 * log10(section.magnitude(at: point1k))
            var worst = 0.0
            for (index, point) in points.enumerated() {
                let got = 20 * log10(section.magnitude(at: point)) - at1k
                worst = max(worst, weights[index] * abs(got - wanted[index]))
            }
            return worst
        }
        var best = (gain: 0.0, centre: 0.8 * nyquist, q: 0.7)
        var bestError = error(.peaking(gainDB: best.gain, centre: best.centre, q: best.q, sampleRate: sampleRate))
        var span = (gain: 12.0, centre: 0.5 * nyquist, q: 2.0)
        for _ in 0..<12 {
            let current = best
            for gainStep in -4...4 {
                for centreStep in -4...4 {
                    for qStep in -4...4 {
                        let gain = current.gain + Double(gainStep) * span.gain / 4
                        let centre = min(0.98 * nyquist, max(1000, current.centre + Double(centreStep) * span.centre / 4))
                        let q = max(0.1, current.q + Double(qStep) * span.q / 4)
                        let candidate = error(.peaking(gainDB: gain, centre: centre, q: q, sampleRate: sampleRate))
                        if candidate < bestError {
                            bestError = candidate
                            best = (gain, centre, q)
                        }
                    }
                }
            }
            span = (span.gain / 2, span.centre / 2, span.q / 2)
        }
        return .peaking(gainDB: best.gain, centre: best.centre, q: best.q, sampleRate: sampleRate)
    }
}
