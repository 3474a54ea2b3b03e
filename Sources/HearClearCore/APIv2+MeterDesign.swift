/// `GET /api/v2/meter-design?rate=…` answer: `LevelMeter`'s filters and rules at one sample rate,
/// for a meter that runs them elsewhere without designing anything itself (the browser's
/// AudioWorklet, Public/meter-worklet.js). Each section is `[b0, b1, b2, a1, a2]`:
/// y[n] = b0·x[n] + b1·x[n−1] + b2·x[n−2] − a1·y[n−1] − a2·y[n−2].
public struct MeterDesignDocument: Codable, Sendable, Equatable {
    /// The rules the document describes (docs/levels.md), raised when a meter would have to change.
    public static let currentVersion = 1

    public var version: Int
    public var sampleRate: Int
    /// An interval's length, and the samples it holds (the last interval of a run may hold fewer).
    public var intervalS: Double
    public var samplesPerInterval: Int
    /// The Fast detector takes in the mean square of each step at once; a step ends after this many
    /// samples or at the interval's end, whichever comes first (`LevelMeter.fastStep`).
    public var samplesPerFastStep: Int
    public var fastTimeConstantS: Double
    /// The lowest level reported, dBFS: digital silence would otherwise be −∞.
    public var floorDB: Double
    /// A second quieter than this, dBFS, holds no sound (`Level.silenceDBFS`): the server drops it,
    /// and a meter may ask whether the microphone is muted.
    public var silenceDB: Double
    /// The A weighting, and C, four sections each, normalised to 0 dB at 1 kHz.
    public var a: [[Double]]
    public var c: [[Double]]
    /// The octave bands 500 Hz … 4 kHz in that order, three sections each, normalised to 0 dB at
    /// their midband frequency; `null` below the rate that holds the 4 kHz band (no details then).
    public var bands: [[[Double]]]?
    /// dB added to dBFS when no calibration is known: the server's default (`Level.defaultCalibrationDB`
    /// unless its operators set another).
    public var defaultCalibrationDB: Double
    /// How speech and music are found at this rate; `null` below the rate the features need
    /// (`SoundFeatures.minimumSampleRate`: no classes then).
    public var classes: SoundClassesDesign?
    /// How loud events are found in the seconds (`LoudEventDetector`).
    public var loudEvents: LoudEventRule
    /// The fewest intervals a check-in counts with (`CheckIn.fewestCountedIntervals`), so that a
    /// meter can say from when a measurement would count.
    public var fewestCountedIntervals: Int
    /// How a microphone is calibrated against a sound level meter's reading, so that a meter
    /// elsewhere refuses what `hearclear calibrate --reading` refuses.
    public var calibration: CalibrationRule

    /// A second whose peak plus the calibration reaches `thresholdDB` is loud; loud seconds that
    /// start less than `mergeWindowS` after an event's first belong to it.
    public struct LoudEventRule: Codable, Sendable, Equatable {
        public var thresholdDB: Double
        public var mergeWindowS: Double

        public init(thresholdDB: Double, mergeWindowS: Double) {
            self.thresholdDB = thresholdDB
            self.mergeWindowS = mergeWindowS
        }

        enum CodingKeys: String, CodingKey {
            case thresholdDB = "threshold_db"
            case mergeWindowS = "merge_window_s"
        }
    }

    public init(
        sampleRate: Int, intervalS: Double, samplesPerInterval: Int, samplesPerFastStep: Int, a: [[Double]], c: [[Double]], bands: [[[Double]]]?,
        classes: SoundClassesDesign?, loudEvents: LoudEventRule
    ) {
        version = Self.currentVersion
        self.sampleRate = sampleRate
        self.intervalS = intervalS
        self.samplesPerInterval = samplesPerInterval
        self.samplesPerFastStep = samplesPerFastStep
        fastTimeConstantS = LevelDetails.fastTimeConstant
        floorDB = Level.floor
        silenceDB = Level.silenceDBFS
        self.a = a
        self.c = c
        self.bands = bands
        defaultCalibrationDB = Level.defaultCalibrationDB
        self.classes = classes
        self.loudEvents = loudEvents
        fewestCountedIntervals = CheckIn.fewestCountedIntervals
        calibration = .standard
    }

    /// `bands` and `classes` as `null` when there are none, rather than left out: the document says so.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(sampleRate, forKey: .sampleRate)
        try container.encode(intervalS, forKey: .intervalS)
        try container.encode(samplesPerInterval, forKey: .samplesPerInterval)
        try container.encode(samplesPerFastStep, forKey: .samplesPerFastStep)
        try container.encode(fastTimeConstantS, forKey: .fastTimeConstantS)
        try container.encode(floorDB, forKey: .floorDB)
        try container.encode(silenceDB, forKey: .silenceDB)
        try container.encode(a, forKey: .a)
        try container.encode(c, forKey: .c)
        try container.encode(bands, forKey: .bands)
        try container.encode(defaultCalibrationDB, forKey: .defaultCalibrationDB)
        try container.encode(classes, forKey: .classes)
        try container.encode(loudEvents, forKey: .loudEvents)
        try container.encode(fewestCountedIntervals, forKey: .fewestCountedIntervals)
        try container.encode(calibration, forKey: .calibration)
    }

    enum CodingKeys: String, CodingKey {
        case version, a, c, bands, classes, calibration
        case sampleRate = "sample_rate"
        case intervalS = "interval_s"
        case samplesPerInterval = "samples_per_interval"
        case samplesPerFastStep = "samples_per_fast_step"
        case fastTimeConstantS = "fast_time_constant_s"
        case floorDB = "floor_db"
        case silenceDB = "silence_db"
        case defaultCalibrationDB = "default_calibration_db"
        case loudEvents = "loud_events"
        case fewestCountedIntervals = "fewest_counted_intervals"
    }
}
