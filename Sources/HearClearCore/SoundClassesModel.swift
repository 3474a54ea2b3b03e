/// The speech and music network as `make train-classes` writes it (Sources/LevelMeter/Resources/
/// sound-classes-vN.json), and as the meter design hands it to the browser's meter
/// (`SoundClassesDesign.model`): the frames' values standardised, convolutions along time with a
/// ReLU, each channel's mean and maximum over the judged frames, and a sigmoid per class.
public struct SoundClassesModel: Codable, Sendable, Equatable {
    public struct Convolution: Codable, Sendable, Equatable {
        /// `outputs × inputs × kernel` weights, in that order, flattened.
        public var weights: [Float]
        public var bias: [Float]
        public var kernel: Int
        public var dilation: Int

        public init(weights: [Float], bias: [Float], kernel: Int, dilation: Int) {
            self.weights = weights
            self.bias = bias
            self.kernel = kernel
            self.dilation = dilation
        }
    }

    public struct Output: Codable, Sendable, Equatable {
        /// One row per class (speech, music) over the pooled channels: every channel's mean, then
        /// every channel's maximum.
        public var weights: [[Float]]
        public var bias: [Float]

        public init(weights: [[Float]], bias: [Float]) {
            self.weights = weights
            self.bias = bias
        }
    }

    /// How many intervals either side of one each class is judged beside.
    public struct NeighbourIntervals: Codable, Sendable, Equatable {
        public var speech: Int
        public var music: Int

        public init(speech: Int, music: Int) {
            self.speech = speech
            self.music = music
        }

        /// Each interval judged alone: a model from before the rule.
        public static let none = NeighbourIntervals(speech: 0, music: 0)
    }

    public var version: Int
    /// The features' version (`SoundFeatures.version`) it was trained on.
    public var featuresVersion: Int
    public var features: [String]
    public var contextFrames: Int
    public var mean: [Float]
    public var scale: [Float]
    /// After the network and the rules that turn a second to neither, each interval's probability
    /// of a class becomes the mean of its own and those of the classified intervals up to this many
    /// either side of it (`SoundClasses.judgedBesideNeighbours`); none in a model from before that
    /// rule, which judges each interval alone.
    public var neighbourIntervals: NeighbourIntervals?
    public var convolutions: [Convolution]
    public var output: Output

    public init(
        version: Int, featuresVersion: Int, features: [String], contextFrames: Int, mean: [Float], scale: [Float], neighbourIntervals: NeighbourIntervals?,
        convolutions: [Convolution], output: Output
    ) {
        self.version = version
        self.featuresVersion = featuresVersion
        self.features = features
        self.contextFrames = contextFrames
        self.mean = mean
        self.scale = scale
        self.neighbourIntervals = neighbourIntervals
        self.convolutions = convolutions
        self.output = output
    }

    enum CodingKeys: String, CodingKey {
        case version, features, mean, scale, convolutions, output
        case featuresVersion = "features_version"
        case contextFrames = "context_frames"
        case neighbourIntervals = "neighbour_intervals"
    }
}
