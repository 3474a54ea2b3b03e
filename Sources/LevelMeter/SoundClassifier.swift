import Foundation
import HearClearCore

/// How likely an interval holds speech and how likely music, each on its own (a talk over
/// background music can be both), from its `SoundFeatures.Window`: a small convolutional network
/// over the frames. The frames' values are standardised with the training set's mean and deviation
/// per value, pass through convolutions along time (ReLU, each wider-spaced than the last, so the
/// last sees about half a second around a frame, the context before the interval included), are
/// pooled over the interval's own frames (mean and maximum of each channel) and give a sigmoid
/// output for speech and one for music. The weights ship as a versioned resource that `make
/// train-classes` rebuilds (docs/sound-classes.md); this code only runs them.
public struct SoundClassifier: Sendable {
    public struct InvalidModel: Error, CustomStringConvertible {
        public let description: String
    }

    public static let resourceName = "sound-classes-v33"
    /// The fewest frames (128 ms) pooled into one judgement.
    static let fewestFramesJudged = 4
    public let version: Int
    /// What `SoundClassesDesign.model` hands the browser's meter.
    let model: SoundClassesModel
    /// Each convolution's weights reordered as `kernel × inputs × outputs`, so that one input value
    /// meets its outputs' weights side by side.
    private let weights: [[Float]]
    private let widths: [Int]

    /// Where the shipped model is.
    static var shippedModel: URL? { Bundle.module.url(forResource: resourceName, withExtension: "json") }

    /// The model shipped with the meter.
    public static let shipped: SoundClassifier = {
        do {
            return try loadShipped()
        } catch {
            fatalError("\(error)")
        }
    }()

    /// The model shipped with the meter, or why it does not load: for a program that reports it
    /// as it starts rather than stopping when the model is first needed.
    public static func loadShipped() throws -> SoundClassifier {
        guard let url = shippedModel else { throw InvalidModel(description: "\(resourceName).json is missing from \(Bundle.module.bundlePath)") }
        do {
            return try SoundClassifier(json: try Data(contentsOf: url))
        } catch let invalid as InvalidModel {
            throw invalid
        } catch {
            throw InvalidModel(description: "the shipped sound classes model does not load: \(error)")
        }
    }

    /// A model whose features are not those this meter computes, in that order and version, or
    /// whose context is not the meter's, is refused.
    public init(json: Data) throws {
        let model = try JSONDecoder().decode(SoundClassesModel.self, from: json)
        let count = SoundFeatures.names.count
        guard model.features == SoundFeatures.names, model.featuresVersion == SoundFeatures.version, model.contextFrames == SoundFeatures.contextFrames else {
            throw InvalidModel(
                description: "the model was trained on other features (version \(model.featuresVersion): \(model.features.joined(separator: ",")), \(model.contextFrames) frames of context) than the meter's (version \(SoundFeatures.version), \(SoundFeatures.contextFrames) frames)")
        }
        var widths = [count]
        for convolution in model.convolutions {
            let outputs = convolution.bias.count
            guard convolution.kernel % 2 == 1, convolution.dilation >= 1, outputs > 0, outputs % 8 == 0,
                convolution.weights.count == outputs * widths.last! * convolution.kernel
            else {
                throw InvalidModel(description: "a convolution's weights do not fit its inputs, outputs (a multiple of 8) and kernel")
            }
            widths.append(outputs)
        }
        let reach = model.neighbourIntervals ?? .none
        guard reach.speech >= 0, reach.music >= 0 else { throw InvalidModel(description: "the model's neighbour_intervals are negative") }
        guard model.mean.count == count, model.scale.count == count, model.scale.allSatisfy({ $0 > 0 && $0.isFinite }), !model.convolutions.isEmpty,
            model.output.bias.count == 2, model.output.weights.count == 2, model.output.weights.allSatisfy({ $0.count == 2 * widths.last! })
        else { throw InvalidModel(description: "the model's layers do not fit \(count) features and 2 classes, or a scale is not positive") }
        self.model = model
        self.widths = widths
        weights = model.convolutions.enumerated().map { index, convolution in
            let inputs = widths[index], outputs = widths[index + 1], kernel = convolution.kernel
            var reordered = [Float](repeating: 0, count: convolution.weights.count)
            for o in 0..<outputs {
                for i in 0..<inputs {
                    for k in 0..<kernel { reordered[(k * inputs + i) * outputs + o] = convolution.weights[(o * inputs + i) * kernel + k] }
                }
            }
            return reordered
        }
        version = model.version
    }

    /// The version a check-in names for `samples` (API v2's `classes_model`): the shipped model's
    /// when any of them was classified, as the client classifies with no other.
    public static func shippedVersion(classifying samples: [Sample]) -> Int? {
        samples.contains { $0.classes != nil } ? shipped.version : nil
    }

    /// `samples`, a series that has ended (a check-in, a recording), with each interval's classes
    /// judged beside its neighbours', as this model's last rule says (`neighbourIntervals`): the
    /// meter hands an interval on as it ends, before the next one is heard, so the rule runs over
    /// the whole series afterwards. A model from before the rule leaves them as they are.
    public func judgedBesideNeighbours(_ samples: [Sample]) -> [Sample] {
        let judged = SoundClasses.judgedBesideNeighbours(samples.map(\.classes), reach: model.neighbourIntervals ?? .none)
        return zip(samples, judged).map { sample, classes in
            var sample = sample
            sample.classes = classes
            return sample
        }
    }

    /// Pooled over the interval's own frames; an interval of fewer than four (the last of a
    /// recording, cut short) over the last four, those before it included: API v2 carries a
    /// check-in's classes only when every interval has them, so a short last interval left unjudged
    /// would take every other's from the check-in. `nil` only when the window holds fewer than four
    /// frames in all.
    public func classes(of window: SoundFeatures.Window) -> SoundClasses? {
        let positions = window.context + window.frames
        let judged = max(window.frames, Self.fewestFramesJudged)
        guard positions >= judged else { return nil }
        let channels = widths[0]
        var input = [Float](repeating: 0, count: positions * channels)
        for position in 0..<positions {
            for channel in 0..<channels {
                let index = position * channels + channel
                input[index] = (window.values[index] - model.mean[channel]) / model.scale[channel]
            }
        }
        // Each layer only from the first position a later layer, or the pooling, reads: the
        // context's first frames feed the interval's through the first layers only.
        var firstRead = [positions - judged]
        for convolution in model.convolutions.reversed().dropLast() {
            firstRead.insert(max(0, firstRead[0] - convolution.kernel / 2 * convolution.dilation), at: 0)
        }
        for (index, convolution) in model.convolutions.enumerated() {
            input = Self.convolve(
                input, positions: positions, from: firstRead[index], inputs: widths[index], outputs: widths[index + 1], weights: weights[index],
                convolution: convolution)
        }
        // Each channel's mean, then its maximum.
        let width = widths.last!
        var pooled = [Float](repeating: 0, count: 2 * width)
        for channel in 0..<width { pooled[width + channel] = -.infinity }
        for position in (positions - judged)..<positions {
            for channel in 0..<width {
                let value = input[position * width + channel]
                pooled[channel] += value
                pooled[width + channel] = max(pooled[width + channel], value)
            }
        }
        for channel in 0..<width { pooled[channel] /= Float(judged) }
        let output = zip(model.output.weights, model.output.bias).map { row, bias in
            1 / (1 + exp(-Double(zip(row, pooled).reduce(bias) { $0 + $1.0 * $1.1 })))
        }
        return SoundClasses(speech: output[0], music: output[1])
    }

    /// One convolution along time and its ReLU, positions outside the window taken as zeros; the
    /// outputs before `from`, which nothing reads, left at zero.
    private static func convolve(
        _ input: [Float], positions: Int, from: Int, inputs: Int, outputs: Int, weights: [Float], convolution: SoundClassesModel.Convolution
    ) -> [Float] {
        var output = [Float](repeating: 0, count: positions * outputs)
        let reach = convolution.kernel / 2, bias = convolution.bias, rowBytes = 4 * outputs
        input.withUnsafeBufferPointer { input in
            weights.withUnsafeBufferPointer { weights in
                output.withUnsafeMutableBufferPointer { output in
                    bias.withUnsafeBytes { bias in
                        for position in from..<positions {
                            let out = UnsafeMutableRawPointer(output.baseAddress! + position * outputs)
                            // Up to 24 outputs at a time in three registers (the model's widths are
                            // multiples of eight), so that each input value is fetched once for all
                            // of them: this loop is most of classifying's time. Each output's sum
                            // runs over the kernel and the inputs in the same order either way.
                            var block = 0
                            while block < outputs {
                                let groups = min(3, (outputs - block) / 8)
                                var sums = (
                                    bias.loadUnaligned(fromByteOffset: 4 * block, as: SIMD8<Float>.self), SIMD8<Float>(), SIMD8<Float>()
                                )
                                if groups > 1 { sums.1 = bias.loadUnaligned(fromByteOffset: 4 * block + 32, as: SIMD8<Float>.self) }
                                if groups > 2 { sums.2 = bias.loadUnaligned(fromByteOffset: 4 * block + 64, as: SIMD8<Float>.self) }
                                for k in 0..<convolution.kernel {
                                    let source = position + (k - reach) * convolution.dilation
                                    guard source >= 0 && source < positions else { continue }
                                    let values = input.baseAddress! + source * inputs
                                    let rows = UnsafeRawPointer(weights.baseAddress! + k * inputs * outputs + block)
                                    switch groups {
                                    case 3:
                                        for i in 0..<inputs {
                                            let value = SIMD8<Float>(repeating: values[i])
                                            sums.0 += value * rows.loadUnaligned(fromByteOffset: i * rowBytes, as: SIMD8<Float>.self)
                                            sums.1 += value * rows.loadUnaligned(fromByteOffset: i * rowBytes + 32, as: SIMD8<Float>.self)
                                            sums.2 += value * rows.loadUnaligned(fromByteOffset: i * rowBytes + 64, as: SIMD8<Float>.self)
                                        }
                                    case 2:
                                        for i in 0..<inputs {
                                            let value = SIMD8<Float>(repeating: values[i])
                                            sums.0 += value * rows.loadUnaligned(fromByteOffset: i * rowBytes, as: SIMD8<Float>.self)
                                            sums.1 += value * rows.loadUnaligned(fromByteOffset: i * rowBytes + 32, as: SIMD8<Float>.self)
                                        }
                                    default:
                                        for i in 0..<inputs {
                                            sums.0 += SIMD8<Float>(repeating: values[i]) * rows.loadUnaligned(fromByteOffset: i * rowBytes, as: SIMD8<Float>.self)
                                        }
                                    }
                                }
                                out.storeBytes(of: sums.0.replacing(with: 0, where: sums.0 .< 0), toByteOffset: 4 * block, as: SIMD8<Float>.self)
                                if groups > 1 { out.storeBytes(of: sums.1.replacing(with: 0, where: sums.1 .< 0), toByteOffset: 4 * block + 32, as: SIMD8<Float>.self) }
                                if groups > 2 { out.storeBytes(of: sums.2.replacing(with: 0, where: sums.2 .< 0), toByteOffset: 4 * block + 64, as: SIMD8<Float>.self) }
                                block += 8 * groups
                            }
                        }
                    }
                }
            }
        }
        return output
    }
}
