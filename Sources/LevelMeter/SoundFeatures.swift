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
    /// Raised whenever a feature is computed differently, so a model trained on others is refused.
    public static let version = 2

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
    private var spectrum: RealFFT
    /// The autocorrelation is the inverse transform of the power spectrum's lower half (to a quarter
    /// of the decimated rate, where a voice's pitch shows in its harmonics), at every other lag.
    private var correlation = RealFFT(size: frameSize / 2)
    private var power = [Double](repeating: 0, count: frameSize / 2 + 1)
    private var powerExtended = [Float](repeating: 0, count: frameSize / 2)
    /// The window's own autocorrelation at the lags of `pitchLags`, normalised: what a perfectly
    /// periodic frame would reach.
    private let windowCorrelation: [Double]
    /// The mel bands' bins and weights one band after another, each band ending at its `bandEnds`,
    /// and the sum of each band's weights.
    private let bandBins: [Int]
    private let bandWeights: [Double]
    private let bandEnds: [Int]
    private let bandTotals: [Double]
    private let logBandTotals: [Double]
    private let spectrumBins: ClosedRange<Int>
    /// Lags, in steps of two decimated samples, from a 400 Hz to an 80 Hz period.
    private let pitchLags: ClosedRange<Int>

    private var decimating: Float = 0
    private var decimated = 0
    private var frame = [Float](repeating: 0, count: frameSize)
    private var filled = 0
    private var framesSeen = 0
    private var counted = 0
    private var frames: [Frame] = []
    private var previousBands: [Double]?

    struct Frame {
        var bands: [Double]
        var energy: Double
        var flux: Double
        var flatness: Double
        var centroid: Double
        var pitch: Double?
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
        // The frame holds sums of `decimation` samples: the window makes them means.
        let decimation = decimation
        spectrum = RealFFT(size: n, window: window.map { Float($0 / Double(decimation)) })
        // (At most a quarter of the frame: beyond it the circular autocorrelation wraps. At 22.05 kHz,
        // which is not decimated, that is a period of 86 Hz rather than 80.)
        let pitchLags = Int((rate / 400 / 2).rounded())...min(n / 4, Int((rate / 80 / 2).rounded()))
        self.pitchLags = pitchLags
        windowCorrelation = (0...pitchLags.upperBound).map { lag in
            (0..<(n - 2 * lag)).map { window[$0] * window[$0 + 2 * lag] }.reduce(0, +) / windowPower
        }
        let binHz = rate / Double(n)
        spectrumBins = Int((Self.lowestHz / binHz).rounded(.up))...Int((Self.highestHz / binHz).rounded(.down))
        // Triangular bands, equally spaced in mel.
        func mel(_ hz: Double) -> Double { 2595 * log10(1 + hz / 700) }
        func hz(_ mel: Double) -> Double { 700 * (pow(10, mel / 2595) - 1) }
        let edges = (0...(Self.bandCount + 1)).map { hz(mel(Self.lowestHz) + (mel(Self.highestHz) - mel(Self.lowestHz)) * Double($0) / Double(Self.bandCount + 1)) }
        let spectrumBins = spectrumBins
        let bands = (0..<Self.bandCount).map { band in
            spectrumBins.compactMap { bin -> (bin: Int, weight: Double)? in
                let f = Double(bin) * binHz
                let rising = (f - edges[band]) / (edges[band + 1] - edges[band])
                let falling = (edges[band + 2] - f) / (edges[band + 2] - edges[band + 1])
                let weight = min(rising, falling)
                return weight > 0 ? (bin, weight) : nil
            }
        }
        bandBins = bands.flatMap { $0.map(\.bin) }
        bandWeights = bands.flatMap { $0.map(\.weight) }
        bandEnds = bands.indices.map { band in bands[...band].map(\.count).reduce(0, +) }
        bandTotals = bands.map { $0.map(\.weight).reduce(0, +) }
        logBandTotals = bandTotals.map(log)
    }

    /// Feeds samples in [−1, 1], in step with `LevelMeter.process`; returns the features of the
    /// intervals they completed (`nil` for one too short to judge).
    public mutating func process(_ samples: UnsafeBufferPointer<Float>) -> [[Double]?] {
        var completed: [[Double]?] = []
        var position = 0
        while position < samples.count {
            let end = position + min(samplesPerInterval - counted, samples.count - position)
            counted += end - position
            while position < end {
                // Averages of `decimation` samples; a frame that fills belongs to the interval it ends in.
                if decimated == 0, case let groups = min((end - position) / decimation, Self.frameSize - filled), groups > 0 {
                    // Whole groups straight into the frame, the common case, in a tight loop.
                    let decimation = decimation, start = position, into = filled
                    frame.withUnsafeMutableBufferPointer { frame in
                        if decimation == 3 {
                            // 48 and 44.1 kHz, spelt out: this takes half the time of the loop below
                            // (perf), whose length is known only at run time.
                            for group in 0..<groups {
                                let first = start + 3 * group
                                frame[into + group] = samples[first] + samples[first + 1] + samples[first + 2]
                            }
                        } else {
                            for group in 0..<groups {
                                let first = start + group * decimation
                                var sum: Float = 0
                                for index in first..<(first + decimation) { sum += samples[index] }
                                frame[into + group] = sum
                            }
                        }
                    }
                    position += groups * decimation
                    filled += groups
                    if filled == Self.frameSize { completeFrame() }
                    continue
                }
                let take = min(decimation - decimated, end - position)
                for index in position..<(position + take) { decimating += samples[index] }
                decimated += take
                position += take
                if decimated == decimation {
                    addDecimated(decimating)
                    decimating = 0
                    decimated = 0
                }
            }
            if counted == samplesPerInterval {
                completed.append(closeInterval())
            }
        }
        return completed
    }

    private mutating func addDecimated(_ sum: Float) {
        frame[filled] = sum
        filled += 1
        if filled == Self.frameSize { completeFrame() }
    }

    private mutating func completeFrame() {
        frames.append(analyseFrame())
        filled = 0
        framesSeen += 1
    }

    public mutating func process(_ samples: [Float]) -> [[Double]?] {
        samples.withUnsafeBufferPointer { process($0) }
    }

    /// The last, partial interval's features, if it holds any samples.
    public mutating func finish() -> [Double]?? {
        counted > 0 ? .some(closeInterval()) : .none
    }

    private mutating func analyseFrame() -> Frame {
        frame.withUnsafeBufferPointer { spectrum.transform($0.baseAddress!) }
        let floor = 1e-12
        let half = Self.frameSize / 2
        var total = 0.0, weighted = 0.0
        spectrum.real.withUnsafeBufferPointer { re in
            spectrum.imaginary.withUnsafeBufferPointer { im in
                power.withUnsafeMutableBufferPointer { power in
                    for bin in 0...half { power[bin] = Double(re[bin]) * Double(re[bin]) + Double(im[bin]) * Double(im[bin]) }
                    for bin in spectrumBins {
                        total += power[bin]
                        weighted += power[bin] * Double(bin)
                    }
                }
            }
        }
        // Flatness over the bands' mean power per bin (Wiener entropy): 1 for white noise, near 0 for
        // a tone. From the bands' logarithms, as a logarithm per bin would cost more than the transform.
        var logBands = [Double](repeating: 0, count: Self.bandCount)
        var meanDensity = 0.0, meanLogDensity = 0.0
        power.withUnsafeBufferPointer { power in
            bandBins.withUnsafeBufferPointer { bins in
                bandWeights.withUnsafeBufferPointer { weights in
                    var member = 0
                    for band in 0..<Self.bandCount {
                        var energy = 0.0
                        while member < bandEnds[band] {
                            energy += power[bins[member]] * weights[member]
                            member += 1
                        }
                        logBands[band] = log10(energy + floor)
                        meanDensity += energy / bandTotals[band]
                        meanLogDensity += logBands[band] * M_LN10 - logBandTotals[band]
                    }
                }
            }
        }
        meanDensity /= Double(Self.bandCount)
        meanLogDensity /= Double(Self.bandCount)
        let flatness = meanDensity > floor ? min(1, exp(meanLogDensity) / meanDensity) : 1
        let binHz = Double(sampleRate) / Double(decimation) / Double(Self.frameSize)
        let centroid = total > floor ? weighted / total * binHz / 1000 : 0
        let flux = previousBands.map { previous in zip(logBands, previous).reduce(0) { $0 + max(0, $1.0 - $1.1) } / Double(Self.bandCount) } ?? 0
        previousBands = logBands
        return Frame(
            bands: logBands, energy: total, flux: flux, flatness: flatness, centroid: centroid,
            pitch: framesSeen % 2 == 0 ? pitchStrength() : nil)
    }

    /// How periodic the frame in `power` is at a voice's pitch, 0 to 1. Taken every other frame:
    /// a voiced stretch lasts several frames, and this takes a transform of its own.
    private mutating func pitchStrength() -> Double {
        // Circular, as the inverse transform of a power spectrum is: the window keeps the wrapped part
        // small at pitch lags. The spectrum is even, so its transform is real and gives the lags.
        let half = Self.frameSize / 2, quarter = half / 2
        powerExtended.withUnsafeMutableBufferPointer { extended in
            power.withUnsafeBufferPointer { power in
                for bin in 0...quarter { extended[bin] = Float(power[bin]) }
                for bin in 1..<quarter { extended[half - bin] = Float(power[bin]) }
            }
        }
        powerExtended.withUnsafeBufferPointer { correlation.transform($0.baseAddress!) }
        let zero = Double(correlation.real[0])
        guard zero > 1e-12 else { return 0 }
        var pitch = 0.0
        for lag in pitchLags { pitch = max(pitch, Double(correlation.real[lag]) / zero / windowCorrelation[lag]) }
        return min(1, max(0, pitch))
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
        let pitches = frames.compactMap(\.pitch)
        return shape + [
            variation, mean(frames.map(\.flux)), deviation(frames.map(\.flux)), mean(frames.map(\.flatness)), deviation(frames.map(\.flatness)),
            mean(frames.map(\.centroid)), deviation(frames.map(\.centroid)), modulation4Hz, lowEnergy, mean(pitches),
            Double(pitches.count { $0 >= voicedStrength }) / Double(pitches.count),
        ]
    }
}
