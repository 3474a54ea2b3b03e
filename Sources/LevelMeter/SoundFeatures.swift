import Foundation

/// What the speech and music classifier looks at, per interval, computed from the same blocks of
/// audio as the levels (docs/sound-classes.md). The audio is decimated to about 16 kHz (an average
/// of 2 or 3 samples: the features look at the spectrum's shape up to 7 kHz, not at its fine
/// detail), cut into frames of 512 samples without overlap (23–35 ms), and each frame gives its
/// energies in 16 mel bands from 100 Hz to 7 kHz, its spectral flux, flatness and centroid, and
/// how periodic it is between 80 and 400 Hz (a voice's pitch). An interval's features are
/// statistics of its frames, all independent of the level, so a calibration does not move them.
public struct SoundFeatures: Sendable {
    public static let names: [String] =
        (0..<bandCount).map { "shape_\($0)" } + [
            "band_variation", "flux_mean", "flux_std", "flatness_mean", "flatness_std", "centroid_mean", "centroid_std",
            "modulation_4hz", "low_energy_ratio", "pitch_mean", "voiced_ratio",
        ]

    /// Below this rate the 7 kHz the bands reach is above the Nyquist limit: no features.
    public static let minimumSampleRate = 14_000
    static let bandCount = 16
    static let frameSize = 512
    static let lowestHz = 100.0
    static let highestHz = 7000.0
    /// A frame is voiced when its normalised autocorrelation reaches this at a pitch lag.
    static let voicedStrength = 0.6

    public let sampleRate: Int
    let decimation: Int
    let samplesPerInterval: Int
    private let fft = FFT(size: frameSize)
    private let window: [Double]
    /// The window's own autocorrelation, normalised: what a perfectly periodic frame would reach.
    private let windowCorrelation: [Double]
    private let bands: [[(bin: Int, weight: Double)]]
    private let spectrumBins: ClosedRange<Int>
    private let pitchLags: ClosedRange<Int>

    private var decimating = 0.0
    private var decimated = 0
    private var frame: [Double] = []
    private var counted = 0
    private var frames: [Frame] = []
    private var previousBands: [Double]?

    struct Frame {
        var bands: [Double]
        var energy: Double
        var flux: Double
        var flatness: Double
        var centroid: Double
        var pitch: Double
    }

    /// `nil` below `minimumSampleRate`.
    public init?(sampleRate: Int, interval: Double = 1) {
        guard sampleRate >= Self.minimumSampleRate else { return nil }
        self.sampleRate = sampleRate
        decimation = max(1, Int((Double(sampleRate) / 16_000).rounded()))
        samplesPerInterval = max(1, Int((interval * Double(sampleRate)).rounded()))
        let rate = Double(sampleRate) / Double(decimation)
        let n = Self.frameSize
        let window = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n)) }
        let windowPower = window.map { $0 * $0 }.reduce(0, +)
        self.window = window
        windowCorrelation = (0..<n).map { lag in (0..<(n - lag)).map { window[$0] * window[$0 + lag] }.reduce(0, +) / windowPower }
        let binHz = rate / Double(n)
        spectrumBins = Int((Self.lowestHz / binHz).rounded(.up))...Int((Self.highestHz / binHz).rounded(.down))
        pitchLags = Int((rate / 400).rounded())...Int((rate / 80).rounded())
        // Triangular bands, equally spaced in mel.
        func mel(_ hz: Double) -> Double { 2595 * log10(1 + hz / 700) }
        func hz(_ mel: Double) -> Double { 700 * (pow(10, mel / 2595) - 1) }
        let edges = (0...(Self.bandCount + 1)).map { hz(mel(Self.lowestHz) + (mel(Self.highestHz) - mel(Self.lowestHz)) * Double($0) / Double(Self.bandCount + 1)) }
        let spectrumBins = spectrumBins
        bands = (0..<Self.bandCount).map { band in
            spectrumBins.compactMap { bin -> (Int, Double)? in
                let f = Double(bin) * binHz
                let rising = (f - edges[band]) / (edges[band + 1] - edges[band])
                let falling = (edges[band + 2] - f) / (edges[band + 2] - edges[band + 1])
                let weight = min(rising, falling)
                return weight > 0 ? (bin, weight) : nil
            }
        }
        frame.reserveCapacity(n)
    }

    /// Feeds samples in [−1, 1], in step with `LevelMeter.process`; returns the features of the
    /// intervals they completed (`nil` for one too short to judge).
    public mutating func process(_ samples: UnsafeBufferPointer<Float>) -> [[Double]?] {
        var completed: [[Double]?] = []
        for sample in samples {
            decimating += Double(sample)
            decimated += 1
            if decimated == decimation {
                frame.append(decimating / Double(decimation))
                decimating = 0
                decimated = 0
                if frame.count == Self.frameSize {
                    frames.append(analyse(frame))
                    frame.removeAll(keepingCapacity: true)
                }
            }
            counted += 1
            if counted == samplesPerInterval {
                completed.append(closeInterval())
            }
        }
        return completed
    }

    public mutating func process(_ samples: [Float]) -> [[Double]?] {
        samples.withUnsafeBufferPointer { process($0) }
    }

    /// The last, partial interval's features, if it holds any samples.
    public mutating func finish() -> [Double]?? {
        counted > 0 ? .some(closeInterval()) : .none
    }

    private mutating func analyse(_ samples: [Double]) -> Frame {
        let windowed = zip(samples, window).map { $0 * $1 }
        let power = fft.powerSpectrum(of: windowed)
        let floor = 1e-12
        let bandEnergies = bands.map { band in band.reduce(0) { $0 + power[$1.bin] * $1.weight } }
        let logBands = bandEnergies.map { log10($0 + floor) }
        var total = 0.0, weighted = 0.0, logSum = 0.0
        for bin in spectrumBins {
            total += power[bin]
            weighted += power[bin] * Double(bin)
            logSum += log(power[bin] + floor)
        }
        let count = Double(spectrumBins.count)
        let mean = total / count
        let flatness = mean > floor ? min(1, exp(logSum / count) / mean) : 1
        let binHz = Double(sampleRate) / Double(decimation) / Double(Self.frameSize)
        let centroid = total > floor ? weighted / total * binHz / 1000 : 0
        let flux = previousBands.map { previous in zip(logBands, previous).reduce(0) { $0 + max(0, $1.0 - $1.1) } / Double(Self.bandCount) } ?? 0
        previousBands = logBands
        // The autocorrelation is the inverse transform of the power spectrum (circular; the window
        // keeps the wrapped part small at pitch lags), normalised by the window's own.
        var real = power + power[1..<(power.count - 1)].reversed(), imaginary = [Double](repeating: 0, count: Self.frameSize)
        fft.transform(&real, &imaginary)
        let pitch = real[0] > floor ? pitchLags.map { real[$0] / real[0] / windowCorrelation[$0] }.max() ?? 0 : 0
        return Frame(bands: logBands, energy: total, flux: flux, flatness: flatness, centroid: centroid, pitch: min(1, max(0, pitch)))
    }

    private mutating func closeInterval() -> [Double]? {
        defer {
            frames.removeAll(keepingCapacity: true)
            counted = 0
        }
        guard frames.count >= 4 else { return nil }
        return Self.summarise(frames, frameSeconds: Double(Self.frameSize * decimation) / Double(sampleRate))
    }

    static func summarise(_ frames: [Frame], frameSeconds: Double) -> [Double] {
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
        func deviation(_ values: [Double]) -> Double {
            let m = mean(values)
            return sqrt(values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(values.count))
        }
        let bandMeans = (0..<bandCount).map { band in mean(frames.map { $0.bands[band] }) }
        let level = mean(bandMeans)
        let shape = bandMeans.map { $0 - level }
        let variation = mean((0..<bandCount).map { band in deviation(frames.map { $0.bands[band] }) })
        // Syllables come about four times a second: the share of the log-energy envelope's
        // modulation between 2 and 8 Hz among 1 to 15 Hz.
        // (A DFT of the envelope at whole cycles per interval: `seconds` cycles are 1 Hz.)
        let envelope = frames.map { log10($0.energy + 1e-12) }
        let envelopeMean = mean(envelope)
        func modulation(atCycles cycles: Int) -> Double {
            var re = 0.0, im = 0.0
            for (index, value) in envelope.enumerated() {
                let phase = 2 * Double.pi * Double(cycles) * Double(index) / Double(envelope.count)
                re += (value - envelopeMean) * cos(phase)
                im -= (value - envelopeMean) * sin(phase)
            }
            return re * re + im * im
        }
        let seconds = Double(frames.count) * frameSeconds
        func cycles(fromHz low: Double, toHz high: Double) -> [Int] {
            let first = max(1, Int((low * seconds).rounded(.up))), last = min(Int(high * seconds), (frames.count - 1) / 2)
            return first <= last ? Array(first...last) : []
        }
        let all = cycles(fromHz: 1, toHz: 15).map(modulation(atCycles:))
        let syllabic = cycles(fromHz: 2, toHz: 8).map(modulation(atCycles:))
        let totalModulation = all.reduce(0, +)
        let modulation4Hz = totalModulation > 0 ? syllabic.reduce(0, +) / totalModulation : 0
        let meanEnergy = mean(frames.map(\.energy))
        let lowEnergy = Double(frames.count { $0.energy < 0.5 * meanEnergy }) / Double(frames.count)
        let pitches = frames.map(\.pitch)
        return shape + [
            variation, mean(frames.map(\.flux)), deviation(frames.map(\.flux)), mean(frames.map(\.flatness)), deviation(frames.map(\.flatness)),
            mean(frames.map(\.centroid)), deviation(frames.map(\.centroid)), modulation4Hz, lowEnergy, mean(pitches),
            Double(pitches.count { $0 >= voicedStrength }) / Double(pitches.count),
        ]
    }
}
