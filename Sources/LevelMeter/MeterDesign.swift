import Foundation
import HearClearCore

/// Every filter a meter runs at one sample rate, as designed: the A and C weightings and the
/// octave bands. `MeterFilters` runs these sections, and the server hands the same ones to the
/// browser's meter (`LevelMeter.designDocument`), so the filters are designed once, here.
public struct MeterDesign: Sendable {
    public let sampleRate: Int
    let a: [Biquad]
    let c: [Biquad]
    /// In `OctaveBand` order; nil below `OctaveBand.minimumSampleRate`.
    let bands: [[Biquad]]?

    public init(sampleRate: Int) {
        precondition(sampleRate > 0)
        self.sampleRate = sampleRate
        a = Self.weighting(.a, sampleRate: sampleRate)
        c = Self.weighting(.c, sampleRate: sampleRate)
        bands = sampleRate >= OctaveBand.minimumSampleRate ? OctaveBand.allCases.map { $0.sections(sampleRate: Double(sampleRate)) } : nil
    }

    /// Fitting a weighting's correction takes tens of milliseconds; a process makes it once per curve and rate.
    private static func weighting(_ curve: WeightingCurve, sampleRate: Int) -> [Biquad] {
        designs.withLock { designs in
            let key = "\(curve)-\(sampleRate)"
            if let known = designs[key] { return known }
            let made = curve.sections(sampleRate: Double(sampleRate))
            designs[key] = made
            return made
        }
    }

    private static let designs = DesignCache()
}

extension Biquad {
    /// As the wire carries a section: `[b0, b1, b2, a1, a2]`.
    var coefficients: [Double] { [b0, b1, b2, a1, a2] }
}

/// The weighting designs made so far, shared by the meters of a process.
private final class DesignCache: @unchecked Sendable {
    private let lock = NSLock()
    private var designs: [String: [Biquad]] = [:]

    func withLock<Result>(_ body: (inout [String: [Biquad]]) -> Result) -> Result {
        lock.withLock { body(&designs) }
    }
}
