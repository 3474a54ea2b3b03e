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

    public var version: Int
    /// The features' version (`SoundFeatures.version`) it was trained on.
    public var featuresVersion: Int
    public var features: [String]
    public var contextFrames: Int
    public var mean: [Float]
    public var scale: [Float]
    public var convolutions: [Convolution]
    public var output: Output

    public init(
        version: Int, featuresVersion: Int, features: [String], contextFrames: Int, mean: [Float], scale: [Float], convolutions: [Convolution],
        output: Output
    ) {
        self.version = version
        self.featuresVersion = featuresVersion
        self.features = features
        self.contextFrames = contextFrames
        self.mean = mean
        self.scale = scale
        self.convolutions = convolutions
        self.output = output
    }

    enum CodingKeys: String, CodingKey {
        case version, features, mean, scale, convolutions, output
        case featuresVersion = "features_version"
        case contextFrames = "context_frames"
    }
}
