import Foundation

/// What the speech and music classifier looks at, computed from the same blocks of audio as the
/// levels (docs/sound-classes.md): per frame of 32 ms, 21 values. The audio is low-passed and
/// decimated to 20–24 kHz (`Decimator`; below 40 kHz it is taken as it is), cut into frames
/// without overlap, and each frame's power spectrum (a Hann window, FFTW) gives its energies in 16
/// mel bands from 100 Hz to 7 kHz, its spectral flux, flatness and centroid, how periodic it is
/// between 80 and 400 Hz (a voice's pitch) and how steady its spectral peaks are
/// (`PeakSteadiness`). The bands are logarithms less their mean over the interval, so a
/// calibration, or a louder room, does not move them.
///
/// Per interval it gives a `Window`: the interval's frames, after the last frames of the intervals
/// before it, which the network reads as context.
public struct SoundFeatures: Sendable {
    /// One frame's values, in this order.
    public static let names: [String] = (0..<bandCount).map { "band_\($0)" } + ["flux", "flatness", "centroid", "pitch", "steadiness"]
    /// Raised whenever a feature is computed differently, so a model trained on others is refused.
    public static let version = 4
    /// How many frames before an interval its window carries (half a second): what the network's
    /// receptive field reaches back.
    public static let contextFrames = 16

    /// Below this rate the 7 kHz the bands reach is above the Nyquist limit: no features.
    public static let minimumSampleRate = 14_000
    static let bandCount = 16
    static let frameSeconds = 0.032
    static let lowestHz = 100.0
    static let highestHz = 7000.0

    /// An interval's frames, after `context` frames from before it, `SoundFeatures.names.count`
    /// values each, one frame after another.
    public struct Window: Sendable, Equatable {
        public var values: [Float]
        public var context: Int
        public var frames: Int

        /// The interval's own frames' values.
        public var own: ArraySlice<Float> { values[(context * SoundFeatures.names.count)...] }
    }

    public let sampleRate: Int
    let frameSize: Int
    let samplesPerInterval: Int
    private(set) var decimator: Decimator
    private let spectrum: RealFFT
    /// The autocorrelation is the inverse transform of the power spectrum's lower half (to a quarter
    /// of the decimated rate, where a voice's pitch shows in its harmonics), at every other lag.
    private let correlation: RealFFT
    private var power: [Float]
    private var powerExtended: [Float]
    /// Each pitch lag's correlation over the window's, for the frame being analysed.
    private var pitchRatios: [Float]
    /// The window's own autocorrelation at the lags of `pitchLags`, normalised: what a perfectly
    /// periodic frame would reach.
    let windowCorrelation: [Float]
    /// The mel bands' bins and weights one band after another, each band ending at its `bandEnds`,
    /// and the sum of each band's weights.
    let bandBins: [Int]
    let bandWeights: [Float]
    let bandEnds: [Int]
    private let bandTotals: [Float]
    private let logBandTotals: [Float]
    let spectrumBins: ClosedRange<Int>
    let binKHz: Float
    /// Lags, in steps of two decimated samples, from a 400 Hz to an 80 Hz period.
    let pitchLags: ClosedRange<Int>

    private var decimated: [Float] = []
    private var frame: [Float]
    private var filled = 0
    private var framesSeen = 0
    private var counted = 0
    /// The interval's frames so far, and the frames before it that its window carries.
    private var frames: [Float] = []
    private var recent: [Float] = []
    /// This frame's log band energies and the last frame's, kept between frames so that a frame
    /// allocates nothing.
    private var bands = [Float](repeating: 0, count: bandCount)
    private var previousBands = [Float](repeating: 0, count: bandCount)
    private var bandsBefore = false
    private var peakSteadiness: PeakSteadiness
    private var lastPitch: Float = 0

    /// `nil` below `minimumSampleRate`.
    public init?(sampleRate: Int, interval: Double = 1) {
        guard sampleRate >= Self.minimumSampleRate else { return nil }
        self.sampleRate = sampleRate
        let factor = sampleRate >= 40_000 ? sampleRate / 20_000 : 1
        decimator = Decimator(factor: factor, sampleRate: sampleRate, passband: Self.highestHz)
        samplesPerInterval = max(1, Int((interval * Double(sampleRate)).rounded()))
        let rate = Double(sampleRate) / Double(factor)
        // 32 ms, in a multiple of 32 samples: sizes FFTW transforms fast (768 at 24 kHz, 704 at 22.05).
        let n = max(64, Int((Self.frameSeconds * rate / 32).rounded()) * 32)
        frameSize = n
        frame = Array(repeating: 0, count: n)
        power = Array(repeating: 0, count: n / 2 + 1)
        powerExtended = Array(repeating: 0, count: n / 2)
        let window = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n)) }
        let windowPower = window.map { $0 * $0 }.reduce(0, +)
        spectrum = RealFFT(size: n, window: window.map { Float($0) })
        correlation = RealFFT(size: n / 2)
        // (At most a quarter of the frame: beyond it the circular autocorrelation wraps.)
        let pitchLags = Int((rate / 400 / 2).rounded())...min(n / 4, Int((rate / 80 / 2).rounded()))
        self.pitchLags = pitchLags
        pitchRatios = Array(repeating: 0, count: pitchLags.count)
        windowCorrelation = (0...pitchLags.upperBound).map { lag in
            Float((0..<(n - 2 * lag)).map { window[$0] * window[$0 + 2 * lag] }.reduce(0, +) / windowPower)
        }
        let binHz = rate / Double(n)
        binKHz = Float(binHz / 1000)
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
        bandWeights = bands.flatMap { $0.map { Float($0.weight) } }
        bandEnds = bands.indices.map { band in bands[...band].map(\.count).reduce(0, +) }
        bandTotals = bands.map { Float($0.map(\.weight).reduce(0, +)) }
        logBandTotals = bandTotals.map(log)
        peakSteadiness = PeakSteadiness(bins: spectrumBins.count)
    }

    /// Feeds samples in [−1, 1], in step with `LevelMeter.process`; returns the windows of the
    /// intervals they completed.
    public mutating func process(_ samples: UnsafeBufferPointer<Float>) -> [Window] {
        var completed: [Window] = []
        var position = 0
        while position < samples.count {
            // A frame that fills belongs to the interval it ends in.
            let end = position + min(samplesPerInterval - counted, samples.count - position)
            counted += end - position
            decimated.removeAll(keepingCapacity: true)
            decimator.process(UnsafeBufferPointer(rebasing: samples[position..<end]), into: &decimated)
            var next = 0
            while next < decimated.count {
                let take = min(frameSize - filled, decimated.count - next)
                frame.replaceSubrange(filled..<(filled + take), with: decimated[next..<(next + take)])
                filled += take
                next += take
                if filled == frameSize {
                    analyseFrame()
                    filled = 0
                }
            }
            position = end
            if counted == samplesPerInterval {
                completed.append(closeInterval())
            }
        }
        return completed
    }

    public mutating func process(_ samples: [Float]) -> [Window] {
        samples.withUnsafeBufferPointer { process($0) }
    }

    /// The last, partial interval's window, if it holds any samples.
    public mutating func finish() -> Window? {
        counted > 0 ? closeInterval() : nil
    }

    private mutating func analyseFrame() {
        frame.withUnsafeBufferPointer { spectrum.transform($0.baseAddress!) }
        let floor: Float = 1e-12
        var total: Float = 0, weighted: Float = 0
        power.withUnsafeMutableBufferPointer { power in
            spectrum.power(into: power)
            // In eight lanes: one bin after another, each sum waited for the last addition.
            let first = spectrumBins.lowerBound, whole = spectrumBins.count / 8 * 8
            let lanes = UnsafeRawPointer(power.baseAddress! + first)
            var totals = SIMD8<Float>(), weightedTotals = SIMD8<Float>()
            var bins = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7) + Float(first)
            for offset in stride(from: 0, to: whole, by: 8) {
                let eight = lanes.loadUnaligned(fromByteOffset: 4 * offset, as: SIMD8<Float>.self)
                totals += eight
                weightedTotals += eight * bins
                bins += 8
            }
            total = totals.sum()
            weighted = weightedTotals.sum()
            for bin in (first + whole)..<(spectrumBins.upperBound + 1) {
                total += power[bin]
                weighted += power[bin] * Float(bin)
            }
        }
        // Flatness over the bands' mean power per bin (Wiener entropy): 1 for white noise, near 0 for
        // a tone. From the bands' logarithms, as a logarithm per bin would cost more than the transform.
        var meanDensity: Float = 0, meanLogDensity: Float = 0
        power.withUnsafeBufferPointer { power in
            bandBins.withUnsafeBufferPointer { bins in
                bandWeights.withUnsafeBufferPointer { weights in
                    var member = 0
                    for band in 0..<Self.bandCount {
                        var energy: Float = 0
                        while member < bandEnds[band] {
                            energy += power[bins[member]] * weights[member]
                            member += 1
                        }
                        bands[band] = log10(energy + floor)
                        meanDensity += energy / bandTotals[band]
                        meanLogDensity += bands[band] * Float(M_LN10) - logBandTotals[band]
                    }
                }
            }
        }
        meanDensity /= Float(Self.bandCount)
        meanLogDensity /= Float(Self.bandCount)
        let flatness = meanDensity > floor ? min(1, exp(meanLogDensity) / meanDensity) : 1
        let centroid = total > floor ? weighted / total * binKHz : 0
        let flux = bandsBefore ? zip(bands, previousBands).reduce(0) { $0 + max(0, $1.0 - $1.1) } / Float(Self.bandCount) : 0
        let steadiness = power.withUnsafeBufferPointer { peakSteadiness.next($0.baseAddress! + spectrumBins.lowerBound) }
        // Every other frame: a voiced stretch lasts several frames, and this takes a transform of its own.
        if framesSeen % 2 == 0 { lastPitch = pitchStrength() }
        framesSeen += 1
        frames += bands
        frames.append(flux)
        frames.append(flatness)
        frames.append(centroid)
        frames.append(lastPitch)
        frames.append(steadiness)
        swap(&bands, &previousBands)
        bandsBefore = true
    }

    /// How periodic the frame in `power` is at a voice's pitch, 0 to 1.
    private mutating func pitchStrength() -> Float {
        // Circular, as the inverse transform of a power spectrum is: the window keeps the wrapped part
        // small at pitch lags. The spectrum is even, so its transform is real and gives the lags.
        let half = frameSize / 2, quarter = half / 2
        powerExtended.withUnsafeMutableBufferPointer { extended in
            power.withUnsafeBufferPointer { power in
                for bin in 0...quarter { extended[bin] = power[bin] }
                for bin in 1..<quarter { extended[half - bin] = power[bin] }
            }
        }
        powerExtended.withUnsafeBufferPointer { correlation.transform($0.baseAddress!) }
        let zero = correlation.real(0)
        guard zero > 1e-12 else { return 0 }
        let first = pitchLags.lowerBound, count = pitchLags.count
        var pitch: Float = 0
        pitchRatios.withUnsafeMutableBufferPointer { ratios in
            let ratios = ratios.baseAddress!
            correlation.reals(pitchLags, into: ratios)
            windowCorrelation.withUnsafeBufferPointer { window in
                // Eight lags at a time: the same two divisions in the same order, so the same
                // quotients, for an eighth of the scalar divisions that were most of this function.
                let (ratios8, window8) = (UnsafeMutableRawPointer(ratios), UnsafeRawPointer(window.baseAddress! + first))
                var index = 0
                while index + 8 <= count {
                    let ratio = ratios8.loadUnaligned(fromByteOffset: 4 * index, as: SIMD8<Float>.self) / SIMD8(repeating: zero)
                        / window8.loadUnaligned(fromByteOffset: 4 * index, as: SIMD8<Float>.self)
                    ratios8.storeBytes(of: ratio, toByteOffset: 4 * index, as: SIMD8<Float>.self)
                    index += 8
                }
                while index < count {
                    ratios[index] = ratios[index] / zero / window[first + index]
                    index += 1
                }
            }
            // The largest in the lags' order, as a tie between 0 and −0 is kept by `max`.
            for index in 0..<count { pitch = max(pitch, ratios[index]) }
        }
        return min(1, max(0, pitch))
    }

    private mutating func closeInterval() -> Window {
        let width = Self.names.count
        let count = frames.count / width
        // The bands less their mean over the interval: the spectrum's shape and how it moves, not its level.
        if count > 0 {
            var sum: Float = 0
            for index in 0..<count { for band in 0..<Self.bandCount { sum += frames[index * width + band] } }
            let mean = sum / Float(count * Self.bandCount)
            for index in 0..<count { for band in 0..<Self.bandCount { frames[index * width + band] -= mean } }
        }
        let window = Window(values: recent + frames, context: recent.count / width, frames: count)
        recent = Array((recent + frames).suffix(Self.contextFrames * width))
        frames.removeAll(keepingCapacity: true)
        counted = 0
        return window
    }
}
