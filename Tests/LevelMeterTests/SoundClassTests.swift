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

    func features(of signal: (Int) -> Float, seconds: Int = 3, sampleRate: Int = 48_000) -> [[Double]] {
        var extractor = SoundFeatures(sampleRate: sampleRate)!
        let samples = (0..<(seconds * sampleRate)).map(signal)
        return extractor.process(samples).compactMap { $0 }
    }

    /// A steady tone over a faint noise floor (every room has one): periodic, tonal and steady,
    /// against the same tone switched on and off four times a second.
    @Test func aSteadyToneIsPeriodicTonalAndSteadier() throws {
        var random = SystemRandomNumberGenerator()
        func tone(_ index: Int) -> Double { 0.3 * sin(2 * Double.pi * 200 * Double(index) / 48_000) }
        func floor() -> Float { Float.random(in: -0.001...0.001, using: &random) }
        let steady = features { Float(tone($0)) + floor() }
        let gated = features { Float(sin(2 * Double.pi * 4 * Double($0) / 48_000) > 0 ? tone($0) : 0) + floor() }
        #expect(steady.count == 3 && gated.count == 3)
        let names = SoundFeatures.names
        func value(_ row: [Double], _ name: String) -> Double { row[names.firstIndex(of: name)!] }
        for (row, switched) in zip(steady, gated) {
            #expect(value(row, "pitch_mean") > 0.9 && value(row, "voiced_ratio") == 1, "\(row)")
            #expect(value(row, "flatness_mean") < 0.05 && value(row, "low_energy_ratio") == 0, "\(row)")
            for name in ["flux_mean", "band_variation", "modulation_4hz", "low_energy_ratio"] {
                #expect(value(row, name) < value(switched, name), "\(name): \(value(row, name)) against \(value(switched, name))")
            }
        }
    }

    @Test func whiteNoiseIsFlatAndAperiodic() throws {
        var random = SystemRandomNumberGenerator()
        let rows = features { _ in Float.random(in: -0.3...0.3, using: &random) }
        let names = SoundFeatures.names
        for row in rows {
            let value = { (name: String) in row[names.firstIndex(of: name)!] }
            #expect(value("flatness_mean") > 0.4 && value("pitch_mean") < 0.5, "\(row)")
        }
    }

    @Test func aSpeechLikeFourHertzSwellIsSeenAsSyllabicModulation() throws {
        // Noise swelling four times a second against the same noise held steady.
        var random = SystemRandomNumberGenerator()
        let names = SoundFeatures.names, index = names.firstIndex(of: "modulation_4hz")!
        let swelling = features { Float(max(0, sin(2 * Double.pi * 4 * Double($0) / 48_000))) * Float.random(in: -0.3...0.3, using: &random) }
        let steady = features { _ in Float.random(in: -0.3...0.3, using: &random) }
        #expect(swelling.allSatisfy { $0[index] > 0.6 } && steady.allSatisfy { $0[index] < swelling.map { $0[index] }.min()! })
    }

    /// The features' transform against the DFT's definition, summed here in Double: a windowed
    /// frame and an unwindowed one, every bin.
    @Test(arguments: [nil, (0..<512).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / 512)) }])
    func theRealTransformIsTheDiscreteFourierTransform(window: [Float]?) {
        var random = SystemRandomNumberGenerator()
        let signal = (0..<512).map { Float(sin(Double($0) * 0.3) * 0.5) + Float.random(in: -0.2...0.2, using: &random) }
        var transform = RealFFT(size: 512, window: window)
        signal.withUnsafeBufferPointer { transform.transform($0.baseAddress!) }
        let weighted = signal.indices.map { Double(signal[$0]) * Double(window?[$0] ?? 1) }
        for bin in 0...256 {
            var re = 0.0, im = 0.0
            for (n, x) in weighted.enumerated() {
                re += x * cos(-2 * Double.pi * Double(bin * n) / 512)
                im += x * sin(-2 * Double.pi * Double(bin * n) / 512)
            }
            // Float's rounding over 9 stages, against a spectrum whose largest bins reach about 130.
            #expect(abs(Double(transform.real[bin]) - re) < 2e-4 && abs(Double(transform.imaginary[bin]) - im) < 2e-4, "bin \(bin): \(transform.real[bin]), \(transform.imaginary[bin]) against \(re), \(im)")
        }
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
        // The same names computed another way (version 1 took the flatness over every bin).
        model["features_version"] = SoundFeatures.version - 1
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
        #expect(meter.finish()?.classes == nil)
    }
}
