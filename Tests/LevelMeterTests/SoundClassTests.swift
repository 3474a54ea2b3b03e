import Foundation
import HearClearCore
import Testing

@testable import LevelMeter

/// Merging detections into sessions, the features on constructed signals, and the model file's
/// checks; the shipped model on real and held-out recordings is `SoundClassEndToEndTests`.
@Suite struct SoundClassTests {
    @Test func detectionsLessThanTwentySecondsApartAreOneSession() {
        let close = DetectedSession.sessions(of: [(0, 0.9), (15, 0.7)], interval: 1)
        #expect(close == [DetectedSession(start: 0, end: 16, meanValue: 0.8, intervals: 2)])
        let apart = DetectedSession.sessions(of: [(0, 0.9), (25, 0.7)], interval: 1)
        #expect(apart.map(\.start) == [0, 25] && apart.map(\.end) == [1, 26])
        // The 20 s are counted from the end of the last detection: 20 s of nothing ends a session.
        #expect(DetectedSession.sessions(of: [(0, 1), (1, 1), (21, 1)], interval: 1).count == 1)
        #expect(DetectedSession.sessions(of: [(0, 1), (1, 1), (22, 1)], interval: 1).count == 2)
        #expect(DetectedSession.sessions(of: [], interval: 1).isEmpty)
    }

    @Test func anEventsClassIsWhatItsIntervalsMostlyHeld() {
        let music = SoundClasses(speech: 0.2, music: 0.9), talk = SoundClasses(speech: 0.8, music: 0.3), neither = SoundClasses(speech: 0.1, music: 0.2)
        #expect(SoundClasses.dominant([music, music, talk]) == .music)
        #expect(SoundClasses.dominant([talk, talk, music, nil]) == .speech)
        #expect(SoundClasses.dominant([neither, neither, talk]) == .other)
        #expect(SoundClasses.dominant([nil, nil]) == nil && SoundClasses.dominant([]) == nil)
    }

    /// Each interval's own frames, one array of values per frame.
    func frames(of signal: (Int) -> Float, seconds: Int = 3, sampleRate: Int = 48_000) -> [[[Float]]] {
        var extractor = SoundFeatures(sampleRate: sampleRate)!
        let samples = (0..<(seconds * sampleRate)).map(signal)
        let width = SoundFeatures.names.count
        return extractor.process(samples).map { window in
            let own = Array(window.own)
            return (0..<window.frames).map { Array(own[($0 * width)..<(($0 + 1) * width)]) }
        }
    }

    func mean(_ frames: [[Float]], _ name: String) -> Float {
        let index = SoundFeatures.names.firstIndex(of: name)!
        return frames.map { $0[index] }.reduce(0, +) / Float(frames.count)
    }

    /// A steady tone over a faint noise floor (every room has one): periodic and tonal, and steadier
    /// than the same tone switched on and off four times a second.
    @Test func aSteadyToneIsPeriodicTonalAndSteadier() throws {
        var random = SystemRandomNumberGenerator()
        func tone(_ index: Int) -> Double { 0.3 * sin(2 * Double.pi * 200 * Double(index) / 48_000) }
        func floor() -> Float { Float.random(in: -0.001...0.001, using: &random) }
        let steady = frames { Float(tone($0)) + floor() }
        let gated = frames { Float(sin(2 * Double.pi * 4 * Double($0) / 48_000) > 0 ? tone($0) : 0) + floor() }
        #expect(steady.count == 3 && gated.count == 3)
        // 32 ms frames at 24 kHz (48 kHz decimated by 2): 31 or 32 a second.
        #expect(steady.allSatisfy { (31...32).contains($0.count) })
        for (interval, switched) in zip(steady, gated) {
            #expect(mean(interval, "pitch") > 0.9 && mean(interval, "flatness") < 0.05, "\(interval)")
            #expect(mean(interval, "flux") < mean(switched, "flux"), "\(mean(interval, "flux")) against \(mean(switched, "flux"))")
        }
    }

    @Test func whiteNoiseIsFlatAndAperiodic() throws {
        var random = SystemRandomNumberGenerator()
        for interval in frames(of: { _ in Float.random(in: -0.3...0.3, using: &random) }) {
            #expect(mean(interval, "flatness") > 0.4 && mean(interval, "pitch") < 0.5, "\(interval)")
        }
    }

    /// The bands are logarithms less their mean over the interval: the same sound 20 dB softer
    /// gives the same values, so a calibration or a louder room does not move the classes.
    /// (A chord over noise: a band holding nothing at all would sit at the logarithm's floor, which
    /// no microphone reaches.)
    @Test func theBandsDoNotDependOnTheLevel() {
        var random = SystemRandomNumberGenerator()
        let noise = (0..<(3 * 48_000)).map { _ in Double.random(in: -0.01...0.01, using: &random) }
        func chord(_ index: Int, _ gain: Double) -> Float {
            Float(gain * (sin(2 * Double.pi * 220 * Double(index) / 48_000) + 0.5 * sin(2 * Double.pi * 1_250 * Double(index) / 48_000) + noise[index]))
        }
        let loud = frames { chord($0, 0.3) }, soft = frames { chord($0, 0.03) }
        for (a, b) in zip(loud.joined(), soft.joined()) {
            for band in 0..<16 { #expect(abs(a[band] - b[band]) < 1e-3, "band \(band): \(a[band]) against \(b[band])") }
        }
    }

    /// What lies above the new Nyquist frequency is filtered out before decimating: at 48 kHz, 17 kHz
    /// would fold onto 7 kHz, inside the bands, and comes out more than 55 dB down; 1 kHz passes
    /// within 0.1 dB. The output does not depend on how the input is cut into blocks.
    @Test func decimatingFiltersWhatWouldFoldBack() {
        func level(_ hz: Double, blocks: [Int] = [48_000]) -> (rms: Double, output: [Float]) {
            var decimator = Decimator(factor: 2, sampleRate: 48_000, passband: 7_000)
            let input = (0..<48_000).map { Float(sin(2 * Double.pi * hz * Double($0) / 48_000)) }
            var output: [Float] = []
            var start = 0
            for size in blocks {
                input[start..<(start + size)].withUnsafeBufferPointer { decimator.process($0, into: &output) }
                start += size
            }
            // Past the filter's start-up.
            let settled = output[100...]
            return ((settled.map { Double($0) * Double($0) }.reduce(0, +) / Double(settled.count)).squareRoot(), output)
        }
        let sine = 1 / 2.0.squareRoot()
        #expect(abs(20 * log10(level(1_000).rms / sine)) < 0.1)
        #expect(20 * log10(level(17_000).rms / sine) < -55)
        let whole = level(1_000), cut = level(1_000, blocks: [7, 1000, 13_001, 33_992])
        #expect(whole.output.count == 24_000 && cut.output == whole.output)
    }

    /// The features' transform against the DFT's definition, summed here in Double: a windowed
    /// frame of 512 points and an unwindowed one of 768 (a frame at 24 kHz), every bin.
    static let hann512: [Float] = (0..<512).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / 512)) }

    @Test(arguments: [(512, hann512), (768, nil)] as [(Int, [Float]?)])
    func theRealTransformIsTheDiscreteFourierTransform(size: Int, window: [Float]?) {
        var random = SystemRandomNumberGenerator()
        let signal = (0..<size).map { Float(sin(Double($0) * 0.3) * 0.5) + Float.random(in: -0.2...0.2, using: &random) }
        let transform = RealFFT(size: size, window: window)
        signal.withUnsafeBufferPointer { transform.transform($0.baseAddress!) }
        let weighted = signal.indices.map { Double(signal[$0]) * Double(window?[$0] ?? 1) }
        for bin in 0...(size / 2) {
            var re = 0.0, im = 0.0
            for (n, x) in weighted.enumerated() {
                re += x * cos(-2 * Double.pi * Double(bin * n) / Double(size))
                im += x * sin(-2 * Double.pi * Double(bin * n) / Double(size))
            }
            // Float's rounding, against a spectrum whose largest bins reach about 200.
            #expect(
                abs(Double(transform.real(bin)) - re) < 3e-4 && abs(Double(transform.imaginary(bin)) - im) < 3e-4,
                "bin \(bin): \(transform.real(bin)), \(transform.imaginary(bin)) against \(re), \(im)")
        }
    }

    /// Frames of 32 ms at any rate a microphone or file may have (decimated from 40 kHz up), so the
    /// network sees the same time scale: 31 or 32 a second.
    @Test(arguments: [14_000, 16_000, 22_050, 32_000, 44_100, 96_000, 192_000])
    func framesLastThirtyTwoMillisecondsAtAnyRate(sampleRate: Int) {
        var random = SystemRandomNumberGenerator()
        let intervals = frames(of: { _ in Float.random(in: -0.3...0.3, using: &random) }, seconds: 2, sampleRate: sampleRate)
        #expect(intervals.count == 2 && intervals.allSatisfy { (31...32).contains($0.count) }, "\(intervals.map(\.count))")
    }

    @Test func belowFourteenKilohertzThereAreNoFeatures() {
        #expect(SoundFeatures(sampleRate: 8_000) == nil && SoundFeatures(sampleRate: 16_000) != nil)
        #expect(LevelMeter(sampleRate: 8_000, classifier: .shipped).classifies == false)
    }

    @Test func theShippedModelLoadsAndAModelForOtherFeaturesIsRefused() throws {
        #expect(SoundClassifier.shipped.version >= 1)
        let url = try #require(SoundClassifier.shippedModel)
        var model = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var reordered = model
        reordered["features"] = (model["features"] as! [String]).reversed() as [String]
        #expect(throws: SoundClassifier.InvalidModel.self) { try SoundClassifier(json: try JSONSerialization.data(withJSONObject: reordered)) }
        // The same names computed another way (version 2 decimated by averaging samples).
        var older = model
        older["features_version"] = SoundFeatures.version - 1
        #expect(throws: SoundClassifier.InvalidModel.self) { try SoundClassifier(json: try JSONSerialization.data(withJSONObject: older)) }
        // Trained with another context than the meter gives.
        model["context_frames"] = SoundFeatures.contextFrames / 2
        #expect(throws: SoundClassifier.InvalidModel.self) { try SoundClassifier(json: try JSONSerialization.data(withJSONObject: model)) }
    }

    /// (Over a faint noise floor, as any microphone has: the model knows no digital silence.)
    @Test func theMeterAttachesEachIntervalsClassesToIt() {
        var meter = LevelMeter(sampleRate: 48_000, classifier: .shipped)
        var random = SystemRandomNumberGenerator()
        let samples = meter.process((0..<(48_000 * 3 + 1000)).map { Float(0.3 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) + Float.random(in: -0.001...0.001, using: &random) })
        #expect(samples.count == 3 && samples.allSatisfy { $0.classes != nil })
        // A pure tone is not speech.
        #expect(samples.allSatisfy { ($0.classes?.speech ?? 1) < SoundClasses.detected })
        // 1000 samples (21 ms) are too short a last interval to judge.
        #expect(meter.finish()?.sample.classes == nil)
    }
}
