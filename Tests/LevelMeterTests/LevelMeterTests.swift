import AudioInput
import Foundation
import HearClearCore
import TestSignals
import Testing

@testable import LevelMeter

@Suite struct LevelMeterTests {
    @Test(arguments: [Weighting.z, .a])
    func aSineAt20dBFSReadsLikeSox(weighting: Weighting) {
        var meter = LevelMeter(sampleRate: 48_000, weighting: weighting)
        let samples = meter.process(Signal.sine(frequency: 1000, dBFS: -20, seconds: 3, sampleRate: 48_000))
        #expect(samples.count == 3)
        // The A filter settles during the first second: judge the later ones.
        for sample in samples.dropFirst() {
            #expect(abs(sample.avg - -23.01) <= 0.01)
            #expect(abs(sample.peak - -20.00) <= 0.01)
        }
        #expect(samples.map(\.t) == [0, 1, 2])
    }

    @Test func aFullScaleSineReadsMinus3Point01() {
        var meter = LevelMeter(sampleRate: 44_100, weighting: .z)
        let sample = meter.process(Signal.sine(frequency: 1000, dBFS: 0, seconds: 1, sampleRate: 44_100))[0]
        #expect(abs(sample.avg - -3.01) <= 0.01)
        #expect(abs(sample.peak) <= 0.01)
    }

    @Test func silenceIsFloored() {
        var meter = LevelMeter(sampleRate: 48_000)
        #expect(meter.process([Float](repeating: 0, count: 48_000)) == [Sample(t: 0, avg: -160, peak: -160, details: LevelDetails(fastMax: -160, cAvg: -160, octaves: [-160, -160, -160, -160]))])
    }

    @Test func blockSizesDoNotChangeTheResult() {
        let signal = Signal.sine(frequency: 440, dBFS: -12, seconds: 2.5, sampleRate: 48_000)
        var whole = LevelMeter(sampleRate: 48_000, interval: 0.5)
        var pieces = LevelMeter(sampleRate: 48_000, interval: 0.5)
        let expected = whole.process(signal) + [whole.finish()?.sample].compactMap { $0 }
        var got: [Sample] = []
        var start = 0
        for size in [1, 999, 24_000, 7, 50_000, 1_000_000] where start < signal.count {
            let end = min(signal.count, start + size)
            got += pieces.process(Array(signal[start..<end]))
            start = end
        }
        got += [pieces.finish()?.sample].compactMap { $0 }
        #expect(got.count == 5 && expected.count == 5)
        for (a, b) in zip(got, expected) {
            #expect(a.t == b.t && abs(a.avg - b.avg) < 1e-9 && abs(a.peak - b.peak) < 1e-9)
        }
    }

    @Test func intervalsSplitExactlyAndThePartialOneComesLast() {
        // Half a second of silence, then half a second of tone, then a quarter second of tone.
        let silence = [Float](repeating: 0, count: 24_000)
        let tone = Signal.sine(frequency: 1000, dBFS: -6, seconds: 0.75, sampleRate: 48_000)
        var meter = LevelMeter(sampleRate: 48_000, interval: 0.5, weighting: .z)
        let samples = meter.process(silence + tone)
        #expect(samples.map(\.t) == [0, 0.5])
        #expect(samples[0].avg == -160)
        #expect(abs(samples[1].avg - -9.01) < 0.02)
        let finished = meter.finish()
        let last = try! #require(finished)
        #expect(last.sample.t == 1.0 && abs(last.sample.avg - -9.01) < 0.05 && last.seconds == 0.25)
        #expect(meter.finish() == nil)
    }

    /// IEC 61672-1 class 1: nominal A-weighting and tolerances (+, −) in dB.
    static let classOne: [(frequency: Double, nominal: Double, plus: Double, minus: Double)] = [
        (31.5, -39.4, 1.5, 1.5), (63, -26.2, 1.0, 1.0), (100, -19.1, 1.0, 1.0), (125, -16.1, 1.0, 1.0),
        (250, -8.6, 1.0, 1.0), (500, -3.2, 1.0, 1.0), (1000, 0, 0.7, 0.7), (2000, 1.2, 1.0, 1.0),
        (4000, 1.0, 1.0, 1.0), (5000, 0.5, 1.5, 1.5), (6300, -0.1, 1.5, 2.0), (8000, -1.1, 1.5, 2.5),
        (10000, -2.5, 2.0, 3.0),
    ]

    @Test(arguments: [44_100, 48_000])
    func aWeightingMeetsClassOne(sampleRate: Int) throws {
        for point in Self.classOne {
            // Measured, not computed: a sine through the meter, A against Z.
            let signal = Signal.sine(frequency: point.frequency, dBFS: -10, seconds: 3, sampleRate: sampleRate)
            var weighted = LevelMeter(sampleRate: sampleRate, weighting: .a)
            var flat = LevelMeter(sampleRate: sampleRate, weighting: .z)
            let a = try #require(weighted.process(signal).last).avg
            let z = try #require(flat.process(signal).last).avg
            let weighting = a - z
            #expect(weighting <= point.nominal + point.plus && weighting >= point.nominal - point.minus, "\(point.frequency) Hz at \(sampleRate) Hz reads \(weighting) dB")
            // And close to the analog design itself.
            #expect(abs(weighting - WeightingCurve.a.analogResponse(at: point.frequency)) < 0.3, "\(point.frequency) Hz at \(sampleRate) Hz")
        }
    }
}

@Suite struct LoudEventTests {
    func seconds(_ loud: [Int], count: Int = 60, calibration: Double = 100) -> [Sample] {
        (0..<count).map { second in
            Sample(t: Double(second), avg: -40, peak: loud.contains(second) ? -10 : -30)  // -10 + 100 = 90 ≥ 85
        }
    }

    @Test func theIssueExample() {
        let events = LoudEventDetector.events(in: seconds([0, 5, 19, 21, 41]), interval: 1, calibrationDB: 100)
        #expect(events == [
            LoudEvent(t: 0, peak: -10, durationS: 20),
            LoudEvent(t: 21, peak: -10, durationS: 1),
            LoudEvent(t: 41, peak: -10, durationS: 1),
        ])
    }

    @Test func noLoudSecondsNoEvents() {
        #expect(LoudEventDetector.events(in: seconds([]), interval: 1, calibrationDB: 100).isEmpty)
    }

    @Test func aLongLoudStretchStartsANewEventEveryTwentySeconds() {
        let events = LoudEventDetector.events(in: seconds(Array(0..<45)), interval: 1, calibrationDB: 100)
        #expect(events.map(\.t) == [0, 20, 40])
        #expect(events.map(\.durationS) == [20, 20, 5])
    }

    /// A recording that stops part-way through its last interval: an event in it ends with the
    /// recording. A series that does not say where it ends counts the interval whole.
    @Test func anEventEndsWithTheRecording() {
        let loud = seconds([0, 1, 44], count: 45)
        #expect(LoudEventDetector.events(in: loud, interval: 1, calibrationDB: 100, recordingEnd: 44.5).map(\.durationS) == [2, 0.5])
        #expect(LoudEventDetector.events(in: loud, interval: 1, calibrationDB: 100).map(\.durationS) == [2, 1])
    }

    @Test func theThresholdIsInclusiveAndCalibrated() {
        let atThreshold = [Sample(t: 0, avg: -30, peak: -15)]
        #expect(LoudEventDetector.events(in: atThreshold, interval: 1, calibrationDB: 100).count == 1)  // exactly 85
        #expect(LoudEventDetector.events(in: atThreshold, interval: 1, calibrationDB: 99.9).isEmpty)
        #expect(LoudEventDetector.events(in: atThreshold, interval: 1, calibrationDB: 90, thresholdDB: 75).count == 1)
    }

    /// Each event says what its own seconds (loud or not) mostly held; the quiet speech after it is not its.
    @Test func anEventIsTaggedWithWhatItsSecondsHeld() {
        let samples = seconds([0, 5, 19]).map { sample in
            var sample = sample
            sample.classes = sample.t < 15 ? SoundClasses(speech: 0.1, music: 0.9) : sample.t < 20 ? SoundClasses(speech: 0.9, music: 0.1) : SoundClasses(speech: 1, music: 0)
            return sample
        }
        #expect(LoudEventDetector.events(in: samples, interval: 1, calibrationDB: 100) == [LoudEvent(t: 0, peak: -10, durationS: 20, sound: .music)])
        #expect(LoudEventDetector.events(in: seconds([0, 5, 19]), interval: 1, calibrationDB: 100).map(\.sound) == [nil])
    }

    @Test func theEventKeepsItsLoudestPeak() {
        var samples = seconds([3, 4, 5])
        samples[4].peak = -2
        #expect(LoudEventDetector.events(in: samples, interval: 1, calibrationDB: 100) == [LoudEvent(t: 3, peak: -2, durationS: 3)])
    }
}

@Suite struct WAVFileTests {
    @Test(arguments: [WAVWriter.Format.int16, .int24, .int32, .float32, .extensibleInt16])
    func everySupportedFormatReadsTheSameLevels(format: WAVWriter.Format) throws {
        let signal = Signal.sine(frequency: 1000, dBFS: -20, seconds: 2, sampleRate: 44_100)
        for channels in [1, 2] {
            let path = try temporaryFile("sine.wav", WAVWriter.data(signal, sampleRate: 44_100, channels: channels, format: format))
            let file = try WAVFile(path: path)
            #expect(file.sampleRate == 44_100 && file.channels == channels)
            var meter = LevelMeter(sampleRate: file.sampleRate, weighting: .z)
            var samples: [Sample] = []
            while let block = try file.read(maxFrames: 10_000) { samples += meter.process(block) }
            #expect(samples.count == 2)
            for sample in samples {
                #expect(abs(sample.avg - -23.01) <= 0.01, "\(format) \(channels) channels")
                #expect(abs(sample.peak - -20.00) <= 0.01, "\(format) \(channels) channels")
            }
        }
    }

    @Test func brokenFilesGiveAClearError() throws {
        let good = WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -20, seconds: 0.1, sampleRate: 8000), sampleRate: 8000, format: .int16)
        var eightBit = good
        eightBit[34] = 8  // bits per sample
        eightBit[32] = 1  // block align
        let cases: [(String, Data, String)] = [
            ("empty", Data(), "not a WAV file"),
            ("text", Data("hello, this is not audio".utf8), "not a WAV file"),
            ("header only", good.prefix(12), "no fmt chunk"),
            ("fmt cut", good.prefix(30), "fmt chunk is truncated"),
            ("no data", good.prefix(12 + 8 + 16 + 12), "no data chunk"),
            ("8-bit", eightBit, "unsupported sample format"),
        ]
        for (name, data, message) in cases {
            let path = try temporaryFile("\(name).wav", data)
            #expect { try WAVFile(path: path) } throws: { error in
                "\(error)".contains(message)
            }
        }
        #expect(throws: WAVFile.Invalid.self) { try WAVFile(path: "/nonexistent/file.wav") }
    }

    /// Headers that lie about their samples, refused by the streaming reader and by libsndfile's
    /// alike, naming what they declare (libsndfile said "SF_INFO struct incomplete", or nothing).
    @Test func implausibleHeadersAreRefusedByBothReaders() throws {
        let good = WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -20, seconds: 0.1, sampleRate: 8000), sampleRate: 8000, format: .int16)
        let cases: [(Int, [UInt8], String)] = [
            (24, [0, 0, 0, 0], "a sample rate of 0 Hz"), (24, [0xFF, 0xFF, 0xFF, 0xFF], "a sample rate of 4294967295 Hz"),
            (34, [1, 0], "1-bit samples"), (32, [0, 0], "a block align of 0 bytes"), (22, [0, 0], "0 channels"),
        ]
        for (offset, bytes, words) in cases {
            var lying = good
            lying.replaceSubrange(offset..<offset + bytes.count, with: bytes)
            let path = try temporaryFile("lying.wav", lying)
            #expect { try WAVFile(path: path) } throws: { "\($0)".contains(words) }
            #expect { try SoundFile(path: path) } throws: { "\($0)".contains(words) }
        }
        // A plausible header still opens with both.
        let path = try temporaryFile("good.wav", good)
        #expect(try WAVFile(path: path).sampleRate == 8000 && SoundFile(path: path).sampleRate == 8000)
    }

    /// A float file's NaN, infinity or 1e30 reached the meter's filters: every later level was NaN
    /// and `hearclear analyze` stopped on "Double value cannot be converted to Int". Both readers now
    /// read such a sample as silence and one beyond full scale as full scale, and say so.
    @Test func floatSamplesNoMicrophoneGivesAreMendedByBothReaders() throws {
        let rate = 8000
        var signal = Signal.sine(frequency: 1000, dBFS: -20, seconds: 3, sampleRate: rate)
        for (second, value) in [(0.5, Float.nan), (1.2, .infinity), (1.5, 1e30), (2.5, -4)] { signal[Int(second * Double(rate))] = value }
        for channels in [1, 2] {
            let path = try temporaryFile("odd.wav", WAVWriter.data(signal, sampleRate: rate, channels: channels, format: .float32))
            let readers: [(String, any AudioSource)] = [("WAVFile", try WAVFile(path: path)), ("SoundFile", try SoundFile(path: path))]
            for (name, reader) in readers {
                var meter = LevelMeter(sampleRate: rate, weighting: .z)
                var samples: [Sample] = [], read: [Float] = []
                while let block = try reader.read(maxFrames: 1000) {
                    read += block
                    samples += meter.process(block)
                }
                #expect(read.count == signal.count && read.allSatisfy { abs($0) <= 1 }, "\(name) \(channels)")
                #expect(samples.count == 3 && samples.allSatisfy { $0.avg.isFinite && $0.peak <= 0.01 }, "\(name) \(channels): \(samples)")
                // One sample in 8,000 read as silence moves the second's level by less than a hundredth.
                #expect(abs(samples[0].avg - -23.01) <= 0.01, "\(name) \(channels): \(samples[0].avg)")
                let said = AudioFile.problems(of: reader).joined()
                #expect(
                    said.contains("2 samples that are not numbers (NaN or infinity) read as silence and 2 samples beyond full scale read as full scale, the first at 0.50 s"),
                    "\(name) \(channels): \(said)")
            }
        }
    }

    @Test func aTruncatedDataChunkYieldsWhatIsThere() throws {
        let data = WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -20, seconds: 1, sampleRate: 8000), sampleRate: 8000, format: .int16)
        let path = try temporaryFile("cut.wav", data.prefix(data.count - 3001))
        let file = try WAVFile(path: path)
        var frames = 0
        while let block = try file.read(maxFrames: 1000) { frames += block.count }
        #expect(frames == 8000 - 1501)
    }
}
