import Foundation
import HearClearCore

/// Every filter of the meter, run in one pass over the audio: the chosen weighting and C side by
/// side in Double lanes, the four octave bands side by side in Float lanes. State persists across
/// calls, so intervals are seamless whatever the block sizes.
struct MeterFilters: Sendable {
    /// What one stretch of samples adds up to.
    struct Sums {
        /// Sums of squares of the weighted signal and of the C-weighted one.
        var weighted = 0.0, c = 0.0
        /// Sums of squares of the four band signals.
        var bands = SIMD4<Double>()
        /// The largest magnitude of the weighted signal.
        var largest = 0.0

        static func += (sum: inout Sums, more: Sums) {
            sum.weighted += more.weighted
            sum.c += more.c
            sum.bands += more.bands
            sum.largest = max(sum.largest, more.largest)
        }
    }

    // Sections held as separate values, not arrays, so the inner loop keeps every coefficient and
    // state in registers.
    private var weighting0, weighting1: DoubleZeroLanes
    private var weighting2, weighting3: WeightingLanes
    private var band0, band1, band2: BandLanes
    private let bandGain: SIMD4<Double>
    /// Z weighting: the first lane's output is ignored for the samples themselves.
    private let unweighted: Bool

    /// Below `OctaveBand.minimumSampleRate` (no bands in the design) the band lanes run a stand-in
    /// that nothing reads.
    init(design: MeterDesign, weighting: Weighting) {
        // With Z, the first lane runs C a second time (its sections have the shape the lanes need),
        // and the samples are taken as they come.
        unweighted = weighting == .z
        let c = design.c
        let chosen = unweighted ? c : design.a
        (weighting0, weighting1) = (DoubleZeroLanes(chosen[0], c[0], atDC: true), DoubleZeroLanes(chosen[1], c[1], atDC: false))
        (weighting2, weighting3) = (WeightingLanes(chosen[2], c[2]), WeightingLanes(chosen[3], c[3]))
        let perBand = design.bands ?? OctaveBand.allCases.map { $0.sections(sampleRate: 48_000) }
        (band0, band1, band2) = (BandLanes(perBand.map { $0[0] }), BandLanes(perBand.map { $0[1] }), BandLanes(perBand.map { $0[2] }))
        bandGain = BandLanes.energyGain(perBand)
    }

    mutating func accumulate(_ samples: UnsafeBufferPointer<Float>) -> Sums {
        var (w0, w1, w2, w3) = (weighting0, weighting1, weighting2, weighting3)
        var (o0, o1, o2) = (band0, band1, band2)
        var squares = SIMD2<Double>(), largest = 0.0
        var bandSquares = SIMD4<Float>()
        for sample in samples {
            let x = SIMD2(repeating: Double(sample))
            var y = w3.process(w2.process(w1.process(w0.process(x))))
            if unweighted { y[0] = x[0] }
            squares += y * y
            largest = max(largest, abs(y[0]))
            let b = o2.process(o1.process(o0.process(SIMD4(repeating: sample))))
            bandSquares += b * b
        }
        (weighting0, weighting1, weighting2, weighting3) = (w0, w1, w2, w3)
        (band0, band1, band2) = (o0, o1, o2)
        return Sums(
            weighted: squares[0], c: squares[1],
            bands: SIMD4(Double(bandSquares[0]), Double(bandSquares[1]), Double(bandSquares[2]), Double(bandSquares[3])) * bandGain,
            largest: largest)
    }
}
