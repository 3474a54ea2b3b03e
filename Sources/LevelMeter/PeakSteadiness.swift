/// How much a frame's spectral peaks stand where the last frame's stood, −1 to 1 (the features'
/// `steadiness`): the correlation over the bins of each one's power over its neighbourhood's mean,
/// less that ratio's mean. Held notes keep their partials in their bins and raise it; a voice's
/// harmonics move with its pitch, and noise's peaks fall anywhere. The mel bands are too wide to
/// show either, and a steady noise under a voice looked like music to a network that saw only them
/// (docs/sound-classes.md, with what it reads on music, a voice and noise).
///
/// Eight bins at a time, and its sums in eight lanes rather than one bin after another: one after
/// another, each sum waited for the last addition, which made this a third of what the features
/// cost. The lanes round differently from a plain loop, not by more than Float's rounding
/// (`SoundClassTests`).
struct PeakSteadiness: Sendable {
    /// The bins on each side of a bin whose mean power its peak is measured against: about 100 Hz
    /// each way, wider than a partial in a Hann window, narrower than a voice's harmonics are apart.
    static let reach = 3

    /// Each bin's power over its neighbourhood's, less that ratio's mean over the bins: this frame's
    /// and the last's, and the sum of the last's squares.
    private var peaks: [Float]
    private var previousPeaks: [Float]
    private var previousSquares: Float = 0
    private var peaksBefore = false

    init(bins: Int) {
        precondition(bins > 0)
        peaks = Array(repeating: 0, count: bins)
        previousPeaks = peaks
    }

    /// The steadiness of the frame whose power in each bin is `bins` (as many as `init` was
    /// given): 0 for the first frame, or when either frame's peaks are flat.
    mutating func next(_ bins: UnsafePointer<Float>) -> Float {
        let count = peaks.count, reach = Self.reach, peaksBefore = peaksBefore
        var squares: Float = 0, product: Float = 0
        peaks.withUnsafeMutableBufferPointer { peaks in
            previousPeaks.withUnsafeBufferPointer { previousPeaks in
                let peaks = peaks.baseAddress!, lanes = UnsafeMutableRawPointer(peaks)
                let power = UnsafeRawPointer(bins), previous = UnsafeRawPointer(previousPeaks.baseAddress!)
                func load(_ pointer: UnsafeRawPointer, _ index: Int) -> SIMD8<Float> {
                    pointer.loadUnaligned(fromByteOffset: 4 * index, as: SIMD8<Float>.self)
                }
                // Each bin's neighbourhood summed afresh, lowest bin first, rather than as a running
                // sum, whose subtractions would leave a loud bin's rounding in its quiet neighbours.
                // Away from the ends its size is known: eight bins at a time.
                let width = SIMD8<Float>(repeating: Float(2 * reach + 1))
                var index = min(reach, count)
                while index + 8 <= count - reach {
                    var neighbourhood = SIMD8<Float>()
                    for offset in -reach...reach { neighbourhood += load(power, index + offset) }
                    lanes.storeBytes(of: load(power, index) / (neighbourhood / width + 1e-12), toByteOffset: 4 * index, as: SIMD8<Float>.self)
                    index += 8
                }
                func atAnEnd(_ index: Int) {
                    let low = max(0, index - reach), high = min(count - 1, index + reach)
                    var neighbourhood: Float = 0
                    for other in low...high { neighbourhood += bins[other] }
                    peaks[index] = bins[index] / (neighbourhood / Float(high - low + 1) + 1e-12)
                }
                for end in 0..<min(reach, count) { atAnEnd(end) }
                for end in index..<count { atAnEnd(end) }
                let whole = count / 8 * 8
                var sums = SIMD8<Float>()
                for index in stride(from: 0, to: whole, by: 8) { sums += load(lanes, index) }
                var sum = sums.sum()
                for index in whole..<count { sum += peaks[index] }
                let mean = sum / Float(count)
                var products = SIMD8<Float>(), squaresInLanes = SIMD8<Float>()
                for index in stride(from: 0, to: whole, by: 8) {
                    let centred = load(lanes, index) - mean
                    lanes.storeBytes(of: centred, toByteOffset: 4 * index, as: SIMD8<Float>.self)
                    squaresInLanes += centred * centred
                    if peaksBefore { products += centred * load(previous, index) }
                }
                squares = squaresInLanes.sum()
                product = products.sum()
                for index in whole..<count {
                    peaks[index] -= mean
                    squares += peaks[index] * peaks[index]
                    if peaksBefore { product += peaks[index] * previousPeaks[index] }
                }
            }
        }
        defer {
            swap(&peaks, &previousPeaks)
            previousSquares = squares
            self.peaksBefore = true
        }
        guard peaksBefore else { return 0 }
        let scale = (squares * previousSquares).squareRoot()
        return scale > 1e-12 ? product / scale : 0
    }
}
