/// How the meter finds speech and music at one sample rate, in `MeterDesignDocument.classes`: the
/// numbers `SoundFeatures` computes its frames' values with, and the network `SoundClassifier`
/// runs, for a meter elsewhere (the browser's, Public/sound-classes.js) that designs nothing itself
/// (docs/sound-classes.md, Features).
///
/// The audio is decimated: y[m] = Σₖ taps[k]·x[m·factor − k], samples before the first taken as 0.
/// The decimated audio is cut into frames of `frameSize` without overlap; a frame belongs to the
/// interval in which its last sample arrived. Each frame, multiplied by a periodic Hann window,
/// gives its power spectrum |X(k)|², X(k) = Σₙ x(n)·e^(−2πikn/frameSize), and from it 21 values:
/// each band's log10(Σ power·weight + 10⁻¹²); the flux, the mean over the bands of their rise
/// since the frame before (0 for the first frame); the flatness, exp(mean of (band·ln 10 − ln
/// bandTotal)) over the mean of (energy / bandTotal), at most 1 (1 when that mean is below
/// 10⁻¹²); the centroid, Σ power·k over Σ power across `spectrumBins`, times `binKHz` (0 below
/// 10⁻¹²); and, every other frame from the first (the frame between repeats the last), the pitch:
/// with P the power of bins 0 … frameSize/4 mirrored into an even sequence of frameSize/2 values,
/// r(l) = Σₘ P(m)·cos(2πml / (frameSize/2)), the largest r(l)/r(0)/windowCorrelation[l] over
/// `pitchLags`, within 0 … 1 (0 when r(0) ≤ 10⁻¹²); and the steadiness: over the bins k of
/// `spectrumBins`, q(k) = power(k) / (mean of power over the bins of `spectrumBins` within
/// `steadinessReach` of k + 10⁻¹²), less the mean of q over those bins, then Σ q·q′ / √(Σ q²·Σ q′²)
/// with q′ the frame before's (0 for the first frame, or when that root is below 10⁻¹²). An
/// interval's bands less their mean over its frames and bands, after the last
/// `model.contextFrames` frames before it, are what the network reads; it pools over the
/// interval's frames, or the last `fewestFramesJudged` when it has fewer. An interval holds neither
/// speech nor music, whatever the network says, when over it and the `unchangingIntervals − 1`
/// before it the bands moved by at most `unchangingRange` on average: with each interval's band
/// means over its own frames, the mean over the bands of (highest − lowest) across those intervals
/// (`UnchangingSound`: a hum, a tone, a fan); an interval without frames of its own starts that
/// count again.
public struct SoundClassesDesign: Codable, Sendable, Equatable {
    public struct Band: Codable, Sendable, Equatable {
        public var bins: [Int]
        public var weights: [Float]

        public init(bins: [Int], weights: [Float]) {
            self.bins = bins
            self.weights = weights
        }
    }

    public var decimationFactor: Int
    public var decimationTaps: [Float]
    public var frameSize: Int
    /// The first and last bin the centroid spans.
    public var spectrumBins: [Int]
    public var binKHz: Float
    /// The mel bands, lowest first.
    public var bands: [Band]
    /// The first and last lag of the pitch, in steps of two decimated samples.
    public var pitchLags: [Int]
    public var windowCorrelation: [Float]
    /// The bins on each side of a bin that the steadiness's neighbourhood spans.
    public var steadinessReach: Int
    public var fewestFramesJudged: Int
    /// How many intervals, this one included, a sound must have kept its spectrum over to hold
    /// neither, and how far (log10 of energy) its bands' means may have moved across them on average.
    public var unchangingIntervals: Int
    public var unchangingRange: Float
    /// A probability from this on counts as detected (`SoundClasses.detected`): in what a second
    /// held, and what a loud event's seconds mostly held (`SoundClasses.dominant`).
    public var detected: Double
    public var model: SoundClassesModel

    public init(
        decimationFactor: Int, decimationTaps: [Float], frameSize: Int, spectrumBins: [Int], binKHz: Float, bands: [Band], pitchLags: [Int],
        windowCorrelation: [Float], steadinessReach: Int, fewestFramesJudged: Int, unchangingIntervals: Int, unchangingRange: Float,
        detected: Double, model: SoundClassesModel
    ) {
        self.decimationFactor = decimationFactor
        self.decimationTaps = decimationTaps
        self.frameSize = frameSize
        self.spectrumBins = spectrumBins
        self.binKHz = binKHz
        self.bands = bands
        self.pitchLags = pitchLags
        self.windowCorrelation = windowCorrelation
        self.steadinessReach = steadinessReach
        self.fewestFramesJudged = fewestFramesJudged
        self.unchangingIntervals = unchangingIntervals
        self.unchangingRange = unchangingRange
        self.detected = detected
        self.model = model
    }

    enum CodingKeys: String, CodingKey {
        case bands, model, detected
        case decimationFactor = "decimation_factor"
        case decimationTaps = "decimation_taps"
        case frameSize = "frame_size"
        case spectrumBins = "spectrum_bins"
        case binKHz = "bin_khz"
        case pitchLags = "pitch_lags"
        case windowCorrelation = "window_correlation"
        case steadinessReach = "steadiness_reach"
        case fewestFramesJudged = "fewest_frames_judged"
        case unchangingIntervals = "unchanging_intervals"
        case unchangingRange = "unchanging_range"
    }
}
