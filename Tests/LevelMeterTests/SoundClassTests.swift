import Foundation
import HearClearAnalysis
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
        // A recording that stops part-way through its last interval ends its last session there.
        #expect(
            DetectedSession.sessions(of: [(0, 1), (1, 1)], interval: 1, recordingEnd: 1.5)
                == [DetectedSession(start: 0, end: 1.5, meanValue: 1, intervals: 2)])
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
    /// than the same tone switched on and off four times a second, in its flux and in its peaks. Its
    /// one peak stays in its bins, but every bin of the floor weighs as much in the steadiness, so
    /// the tone raises it to about 0.14 only (the gated one about 0.07, noise 0).
    @Test func aSteadyToneIsPeriodicTonalAndSteadier() throws {
        // The same floor on every run.
        var random = SplitMix64(seed: 2026)
        func floor() -> Float { Float(random.uniform(-0.001, 0.001)) }
        func tone(_ index: Int) -> Double { 0.3 * sin(2 * Double.pi * 200 * Double(index) / 48_000) }
        let steady = frames { Float(tone($0)) + floor() }
        let gated = frames { Float(sin(2 * Double.pi * 4 * Double($0) / 48_000) > 0 ? tone($0) : 0) + floor() }
        #expect(steady.count == 3 && gated.count == 3)
        // 32 ms frames at 24 kHz (48 kHz decimated by 2): 31 or 32 a second.
        #expect(steady.allSatisfy { (31...32).contains($0.count) })
        for (interval, switched) in zip(steady, gated) {
            #expect(mean(interval, "pitch") > 0.9 && mean(interval, "flatness") < 0.05, "\(interval)")
            #expect(mean(interval, "flux") < mean(switched, "flux"), "\(mean(interval, "flux")) against \(mean(switched, "flux"))")
        }
        // Over the three seconds, past the first frame (which has none before it).
        let held = mean(Array(steady.joined().dropFirst()), "steadiness"), switched = mean(Array(gated.joined().dropFirst()), "steadiness")
        #expect(held > 0.1 && held > switched + 0.03, "steady \(held), switched \(switched)")
    }

    @Test func whiteNoiseIsFlatAndAperiodic() throws {
        var random = SystemRandomNumberGenerator()
        for interval in frames(of: { _ in Float.random(in: -0.3...0.3, using: &random) }) {
            #expect(mean(interval, "flatness") > 0.4 && mean(interval, "pitch") < 0.5, "\(interval)")
            // Its peaks fall anywhere, frame after frame.
            #expect(abs(mean(interval, "steadiness")) < 0.1, "\(mean(interval, "steadiness"))")
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

    /// Each output is its taps times the samples they meet, summed in the taps' order, bit for bit
    /// as a plain loop sums them, however the outputs are grouped for speed: the features the model
    /// was trained on (`make train-classes`) come from exactly this arithmetic. At 48 kHz (a
    /// half-band filter) and at 96 kHz (a factor of 4), blocks of odd sizes.
    @Test(arguments: [(2, 48_000), (4, 96_000)])
    func decimatingSumsEachOutputAsAPlainLoopDoes(factor: Int, sampleRate: Int) {
        var decimator = Decimator(factor: factor, sampleRate: sampleRate, passband: 7_000)
        // Broadband and the same on every run: a tone and a sine of a scrambled phase.
        let input = (0..<20_011).map { index -> Float in
            let scrambled = Double(index * index % 9_973)
            return Float(0.5 * sin(Double(index) * 0.37) + 0.3 * sin(scrambled * 0.011))
        }
        var output: [Float] = []
        var start = 0
        for size in [5, 4_099, 77, 15_830] {
            input[start..<(start + size)].withUnsafeBufferPointer { decimator.process($0, into: &output) }
            start += size
        }
        // The filter over the input after a history of zeros: output j's newest sample is input j·factor.
        let taps = decimator.taps, largest = taps.map(abs).max()!
        let history = [Float](repeating: 0, count: taps.count - 1) + input
        var expected: [Float] = []
        var newest = 0
        while newest < input.count {
            var sum: Float = 0
            for (offset, tap) in taps.reversed().enumerated() where abs(tap) > 1e-6 * largest {
                sum += tap * history[newest + offset]
            }
            expected.append(sum)
            newest += factor
        }
        #expect(output.count == expected.count)
        #expect(output == expected, "first difference at \(output.indices.first { output[$0] != expected[$0] } ?? -1)")
    }

    /// The steadiness, summed in lanes, is its definition (docs/sound-classes.md, "Features") summed
    /// plainly in Double, to Float's rounding: spectra of as many bins as a frame has (221 at
    /// 48 kHz) and of counts the lanes do not divide, down to fewer than a neighbourhood; peaks that
    /// stay, peaks that move, and a flat spectrum, whose peaks are none.
    @Test(arguments: [1, 5, 8, 13, 29, 221, 222])
    func theSteadinessIsItsDefinition(bins: Int) {
        // The same spectra on every run.
        var random = SplitMix64(seed: UInt64(bins))
        func unit() -> Double { random.uniform() }
        let reach = PeakSteadiness.reach
        func ratios(_ power: [Double]) -> [Double] {
            let peaks = power.indices.map { index in
                let neighbourhood = power[max(0, index - reach)...min(power.count - 1, index + reach)]
                return power[index] / (neighbourhood.reduce(0, +) / Double(neighbourhood.count) + 1e-12)
            }
            let mean = peaks.reduce(0, +) / Double(peaks.count)
            return peaks.map { $0 - mean }
        }
        let held = (0..<bins).map { index in index % 7 == 3 ? 40.0 : unit() }
        let spectra: [[Double]] = [
            held, held.map { $0 * (0.9 + 0.2 * unit()) }, (0..<bins).map { _ in unit() * 10 },
            [Double](repeating: 2, count: bins), held,
        ]
        var steadiness = PeakSteadiness(bins: bins)
        var previous: [Double]?
        for (frame, spectrum) in spectra.enumerated() {
            let power = spectrum.map { Float($0) }
            let measured = power.withUnsafeBufferPointer { steadiness.next($0.baseAddress!) }
            let peaks = ratios(power.map(Double.init))
            var expected = 0.0
            if let previous {
                let scale = (peaks.map { $0 * $0 }.reduce(0, +) * previous.map { $0 * $0 }.reduce(0, +)).squareRoot()
                expected = scale > 1e-12 ? zip(peaks, previous).map { $0 * $1 }.reduce(0, +) / scale : 0
            }
            #expect(abs(Double(measured) - expected) < 1e-4, "\(bins) bins, frame \(frame): \(measured) against \(expected)")
            previous = peaks
        }
    }

    /// The network run as its description reads (docs/sound-classes.md, "The model"), in plain
    /// loops over its file's weights, every layer at every position: the meter's grouped arithmetic,
    /// which skips the positions nothing reads, gives the same bits, so the figures `make
    /// train-classes` reports are what the meter computes. The shipped model (24 channels: its
    /// outputs three eights at a time), and made-up ones with a kernel of 5 and 16 channels (two
    /// eights) or 32 (three, then one); windows of 31 frames after 16 of context, and of 5 with none.
    @Test(arguments: [nil, 16, 32], [(16, 31), (0, 5)])
    func theNetworkGivesWhatPlainLoopsGive(madeUpChannels: Int?, window shape: (context: Int, frames: Int)) throws {
        let model = try madeUpChannels.map { Self.madeUpModel(channels: $0, kernel: 5) } ?? Self.shippedModel()
        let classifier = try SoundClassifier(json: JSONEncoder().encode(model))
        let width = SoundFeatures.names.count, positions = shape.context + shape.frames
        let values = (0..<(positions * width)).map { index -> Float in
            let scrambled = Double(index * index % 4_099)
            return Float(2 * sin(Double(index) * 0.61) + sin(scrambled * 0.017))
        }
        var layer = (0..<positions).map { position in
            (0..<width).map { channel in (values[position * width + channel] - model.mean[channel]) / model.scale[channel] }
        }
        for convolution in model.convolutions {
            let inputs = layer[0].count, outputs = convolution.bias.count, reach = convolution.kernel / 2
            layer = (0..<positions).map { position in
                (0..<outputs).map { output in
                    var sum = convolution.bias[output]
                    for k in 0..<convolution.kernel {
                        let source = position + (k - reach) * convolution.dilation
                        guard (0..<positions).contains(source) else { continue }
                        for input in 0..<inputs {
                            sum += layer[source][input] * convolution.weights[(output * inputs + input) * convolution.kernel + k]
                        }
                    }
                    return sum < 0 ? 0 : sum
                }
            }
        }
        let channels = layer[0].count
        var means = [Float](repeating: 0, count: channels), maxima = [Float](repeating: -.infinity, count: channels)
        for position in shape.context..<positions {
            for channel in 0..<channels {
                means[channel] += layer[position][channel]
                maxima[channel] = max(maxima[channel], layer[position][channel])
            }
        }
        let pooled = means.map { $0 / Float(shape.frames) } + maxima
        let expected = zip(model.output.weights, model.output.bias).map { row, bias in
            var sum = bias
            for (weight, value) in zip(row, pooled) { sum += weight * value }
            return 1 / (1 + exp(-Double(sum)))
        }
        let classes = try #require(classifier.classes(of: SoundFeatures.Window(values: values, context: shape.context, frames: shape.frames)))
        #expect(classes == SoundClasses(speech: expected[0], music: expected[1]))
    }

    static func shippedModel() throws -> SoundClassesModel {
        try JSONDecoder().decode(SoundClassesModel.self, from: Data(contentsOf: try #require(SoundClassifier.shippedModel)))
    }

    /// Four convolutions of `channels` channels (dilations 1, 2, 4, 8) with weights that are the
    /// same on every run.
    static func madeUpModel(channels: Int, kernel: Int) -> SoundClassesModel {
        var seed = 0
        func weights(_ count: Int) -> [Float] {
            (0..<count).map { _ in
                seed += 1
                return Float(sin(Double(seed) * 1.7)) * 0.4
            }
        }
        var inputs = SoundFeatures.names.count
        let convolutions = [1, 2, 4, 8].map { dilation -> SoundClassesModel.Convolution in
            defer { inputs = channels }
            return .init(weights: weights(channels * inputs * kernel), bias: weights(channels), kernel: kernel, dilation: dilation)
        }
        return SoundClassesModel(
            version: 1, featuresVersion: SoundFeatures.version, features: SoundFeatures.names, contextFrames: SoundFeatures.contextFrames,
            mean: weights(SoundFeatures.names.count), scale: weights(SoundFeatures.names.count).map { abs($0) + 0.5 }, neighbourIntervals: .init(speech: 0, music: 1),
            convolutions: convolutions, output: .init(weights: [weights(2 * channels), weights(2 * channels)], bias: weights(2)))
    }

    /// The features' transform against the DFT's definition, summed here in Double: windowed frames
    /// of 512 points and of 90 (not a multiple of the eight the window is applied at a time), and an
    /// unwindowed one of 768 (a frame at 24 kHz), every bin.
    static func hann(_ size: Int) -> [Float] { (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) } }

    @Test(arguments: [(512, hann(512)), (90, hann(90)), (768, nil)] as [(Int, [Float]?)])
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
        // A reach no series has.
        var backwards = model
        backwards["neighbour_intervals"] = ["speech": -1, "music": 1]
        #expect(throws: SoundClassifier.InvalidModel.self) { try SoundClassifier(json: try JSONSerialization.data(withJSONObject: backwards)) }
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
        // A last interval of 1000 samples (21 ms, not one frame of its own) is judged on the last
        // four frames, those of the interval before it: otherwise the check-in would carry no classes
        // at all, as API v2 carries them only when every interval has them.
        let last = meter.finish()?.sample
        #expect(last?.classes != nil)
        let checkIn = CheckIn(id: UUID(), venueID: "v", startedAt: Date(), calibrationDB: nil, samples: samples + [last!])
        #expect(CheckInV2(checkIn).classes?.speech.count == 4)
    }

    /// Was: `hearclear analyze` of a muted microphone's zeros said "music in 100 %" (p 0.50–0.55
    /// each second): the network never heard digital silence, as its corpus lies over a −60 dBFS
    /// floor. A second that held no sound at all (`Level.isSilence`, which the server drops) holds
    /// neither; a faint sound above that is judged by the network as before.
    @Test func aSecondOfNoSoundHoldsNeitherSpeechNorMusic() {
        func judged(_ audio: [Float]) -> (meter: [SoundClasses?], network: [SoundClasses?]) {
            var meter = LevelMeter(sampleRate: 48_000, classifier: .shipped)
            var features = SoundFeatures(sampleRate: 48_000)!
            let windows = features.process(audio) + [features.finish()].compactMap { $0 }
            return ((meter.process(audio) + [meter.finish()?.sample].compactMap { $0 }).map(\.classes), windows.map(SoundClassifier.shipped.classes(of:)))
        }
        let zeros = judged([Float](repeating: 0, count: 48_000 * 3))
        #expect(zeros.meter == [SoundClasses?](repeating: SoundClasses(speech: 0, music: 0), count: 3))
        // The rule, not the network, says so: the network alone judges those seconds otherwise
        // (versions up to 28 called some of them music; version 33 gives them about 0.11).
        #expect(zeros.network.allSatisfy { $0 != nil && $0 != SoundClasses(speech: 0, music: 0) }, "\(zeros.network)")
        // A tone at −100 dBFS is quiet but not silence: the network's own judgement stands.
        let faint = judged((0..<(48_000 * 3)).map { Float(1e-5 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) })
        #expect(faint.meter.count == 3 && faint.meter == faint.network)
    }

    /// A hum keeps its spectrum for seconds, and over the half second the network sees it looks like
    /// a held bass note: the network alone reads a mains hum as music (versions 19, 21 and 22). From the fourth
    /// second it has kept its spectrum, it holds neither; before, the network's judgement stands. A
    /// melody, its note changing every second, keeps the network's judgement throughout.
    @Test func aSoundThatDoesNotChangeHoldsNeitherFromItsFourthSecond() {
        func judged(_ signal: (Int) -> Float) -> (meter: [SoundClasses?], network: [SoundClasses?]) {
            let audio = (0..<(48_000 * 8)).map(signal)
            var meter = LevelMeter(sampleRate: 48_000, classifier: .shipped)
            var features = SoundFeatures(sampleRate: 48_000)!
            return (meter.process(audio).map(\.classes), features.process(audio).map(SoundClassifier.shipped.classes(of:)))
        }
        var random = SplitMix64(seed: 2026)
        let floor = (0..<(48_000 * 8)).map { _ in Float(Double.random(in: -0.001...0.001, using: &random)) }
        func partials(_ hertz: [Double], at index: Int) -> Float {
            Float(hertz.reduce(0) { $0 + 0.1 * sin(2 * Double.pi * $1 * Double(index) / 48_000) }) + floor[index]
        }
        let hum = judged { partials([60, 120, 180], at: $0) }
        #expect(hum.network.count == 8 && hum.network.contains { ($0?.music ?? 0) >= SoundClasses.detected }, "\(hum.network)")
        #expect(Array(hum.meter.prefix(3)) == Array(hum.network.prefix(3)))
        #expect(hum.meter.dropFirst(3).allSatisfy { $0 == .neither }, "\(hum.meter) \(hum.network)")

        let notes = [262.0, 330, 392, 523]
        let melody = judged { partials([notes[$0 / 48_000 % 4], notes[$0 / 48_000 % 4] * 2], at: $0) }
        #expect(melody.meter.count == 8 && melody.meter == melody.network)
    }

    /// Was: a check-in of a hum ended by "stop" sent its last two seconds as music (the page's
    /// `[100, 100, 67, 33, 0, 0, 0, 33, 50]`, BrowserMeasureTests). The last interval, cut short,
    /// held a few frames or none of its own: a few frames' band means over a room's noise move by
    /// more than the rule allows, and none start its count again, so the network's music stood
    /// there, and the rule over neighbours carried it into the second before. An interval cut short
    /// is judged with the one before it, as long as a hum has kept its spectrum through both.
    @Test(arguments: [500, 1600, 5000, 12_000, 40_000])
    func aHumCutShortHoldsNeitherToItsEnd(tail: Int) {
        var random = SplitMix64(seed: 2027)
        let audio = (0..<(48_000 * 6 + tail)).map { index in
            Float([60.0, 120].reduce(0) { $0 + 0.05 * sin(2 * Double.pi * $1 * Double(index) / 48_000) })
                + Float(Double.random(in: -0.02...0.02, using: &random))
        }
        var meter = LevelMeter(sampleRate: 48_000, classifier: .shipped)
        let seconds = meter.process(audio) + [meter.finish()?.sample].compactMap { $0 }
        let classes = SoundClassifier.shipped.judgedBesideNeighbours(seconds).map(\.classes)
        #expect(classes.count == 7 && classes.dropFirst(4).allSatisfy { $0 == .neither }, "\(classes)")
    }

    /// The rule on made-up windows: four intervals of one second (eight of half a second) over which
    /// the bands moved by at most 0.08 on average (here one band of the 16 moves, by up to 1.28);
    /// bands that move more, or an interval without frames of its own, start the count again. An
    /// interval cut short joins the one before it and does not lengthen the span.
    @Test func anUnchangingSoundSpansFourSecondsWithinTheRange() {
        #expect(UnchangingSound(interval: 1).intervals == 4 && UnchangingSound(interval: 0.5).intervals == 8)
        #expect(UnchangingSound(interval: 10).intervals == 4)
        let width = SoundFeatures.names.count
        func window(firstBand: Float, frames: Int = 31) -> SoundFeatures.Window {
            var frame = [Float](repeating: 0, count: width)
            frame[0] = firstBand
            return SoundFeatures.Window(values: Array((0..<frames).map { _ in frame }.joined()), context: 0, frames: frames)
        }
        var sound = UnchangingSound(interval: 1)
        let bands: [Float] = [0, 0.5, 1.2, 0.6, 2.0, 0.6, 0.6, 0.6, 0.6]
        #expect(bands.map { sound.hasNotChanged(through: window(firstBand: $0)) } == [false, false, false, true, false, false, false, false, true])
        #expect(sound.hasNotChanged(through: window(firstBand: 0.6, frames: 0)) == false)
        #expect([0.6, 0.6, 0.6, 0.6].map { sound.hasNotChanged(through: window(firstBand: $0)) } == [false, false, false, true])
        // Cut short, two frames at 2.0 would move the band by 1.4 on their own (0.0875 on
        // average); joined to the 31 frames before them, the mean moves to 0.685.
        let cutShort: [(Float, Int)] = [(2.0, 2), (0.6, 0), (4.0, 31)]
        #expect(cutShort.map { sound.hasNotChanged(through: window(firstBand: $0.0, frames: $0.1), cutShort: true) } == [true, true, false])
        var fresh = UnchangingSound(interval: 1)
        #expect([0.6, 0.6, 0.6].map { fresh.hasNotChanged(through: window(firstBand: $0)) } == [false, false, false])
        #expect([20].map { fresh.hasNotChanged(through: window(firstBand: 0.6, frames: $0), cutShort: true) } == [false])
    }

    /// Only a recording of fewer than four frames in all has nothing to judge.
    @Test func aRecordingShorterThanFourFramesIsNotJudged() {
        var meter = LevelMeter(sampleRate: 48_000, classifier: .shipped)
        #expect(meter.process((0..<4000).map { Float(0.3 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }).isEmpty)
        #expect(meter.finish()?.sample.classes == nil)
    }
}
