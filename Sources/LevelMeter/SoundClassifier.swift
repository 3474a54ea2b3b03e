import Foundation
import HearClearCore

/// How likely an interval holds speech and how likely music, each on its own (a talk over
/// background music can be both), from its `SoundFeatures`: a small neural network over the
/// standardised features, one hidden layer of tanh units and a sigmoid output per class. The
/// weights ship as a versioned resource that `make train-classes` rebuilds
/// (docs/sound-classes.md); this code only runs them.
public struct SoundClassifier: Sendable {
    /// The resource file as `make train-classes` writes it.
    struct Model: Codable {
        struct Layer: Codable {
            /// One row of input weights per unit.
            var weights: [[Double]]
            var bias: [Double]

            func apply(_ input: [Double], _ activation: (Double) -> Double) -> [Double] {
                zip(weights, bias).map { row, bias in activation(zip(row, input).reduce(bias) { $0 + $1.0 * $1.1 }) }
            }
        }

        var version: Int
        /// The `SoundFeatures.version` it was trained on.
        var featuresVersion: Int
        var features: [String]
        var mean: [Double]
        var scale: [Double]
        var hidden: Layer
        /// Speech, then music.
        var output: Layer
    }

    public struct InvalidModel: Error, CustomStringConvertible {
        public let description: String
    }

    public static let resourceName = "sound-classes-v3"
    public let version: Int
    private let model: Model

    /// Where the shipped model is.
    static var shippedModel: URL? { Bundle.module.url(forResource: resourceName, withExtension: "json") }

    /// The model shipped with the meter.
    public static let shipped: SoundClassifier = {
        guard let url = shippedModel else {
            fatalError("\(resourceName).json is missing from \(Bundle.module.bundlePath)")
        }
        do {
            return try SoundClassifier(json: try Data(contentsOf: url))
        } catch {
            fatalError("the shipped sound classes model does not load: \(error)")
        }
    }()

    /// A model whose features are not those this meter computes, in that order and version, is refused.
    public init(json: Data) throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let model = try decoder.decode(Model.self, from: json)
        let count = SoundFeatures.names.count
        guard model.features == SoundFeatures.names, model.featuresVersion == SoundFeatures.version else {
            throw InvalidModel(
                description: "the model was trained on other features (version \(model.featuresVersion): \(model.features.joined(separator: ","))) than the meter's (version \(SoundFeatures.version))")
        }
        let units = model.hidden.bias.count
        guard model.mean.count == count, model.scale.count == count, model.scale.allSatisfy({ $0 > 0 && $0.isFinite }),
            model.hidden.weights.count == units, model.hidden.weights.allSatisfy({ $0.count == count }),
            model.output.bias.count == 2, model.output.weights.count == 2, model.output.weights.allSatisfy({ $0.count == units })
        else { throw InvalidModel(description: "the model's layers do not fit \(count) features and 2 classes, or a scale is not positive") }
        self.model = model
        version = model.version
    }

    public func classes(of features: [Double]) -> SoundClasses {
        let standardised = features.indices.map { (features[$0] - model.mean[$0]) / model.scale[$0] }
        let output = model.output.apply(model.hidden.apply(standardised, tanh)) { 1 / (1 + exp(-$0)) }
        return SoundClasses(speech: output[0], music: output[1])
    }
}
