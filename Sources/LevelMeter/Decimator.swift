import Foundation

/// Lowers a sample rate by a whole factor through a low-pass FIR filter designed once (a windowed
/// sinc, Kaiser window), so that what lies above the new Nyquist frequency is removed before it
/// could fold back onto the frequencies kept. Averaging a few samples, as the features did before,
/// attenuates 9 kHz at 48 kHz by under 5 dB: it folded onto the mel bands below 7 kHz.
///
/// The filter passes everything up to `passband` and stops from the lowest frequency that would
/// fold onto the passband (the new rate less `passband`) with `stopbandDB` of attenuation. Written
/// here: no library the meter may use has a polyphase decimator. The input is split into its
/// `factor` phases so that each output's taps read contiguous samples, many outputs at a time.
struct Decimator: Sendable {
    let factor: Int
    /// The filter's taps, first applied to the newest sample.
    let taps: [Float]
    /// The last `taps.count - 1` input samples, for the next block's first outputs.
    private var history: [Float]
    /// Where in the factor's cycle the next input sample falls: an output is due when it reaches 0.
    private var phase = 0
    /// Where in an output's read (oldest sample first) the taps that are not zero fall, and their
    /// weights. The cutoff lies halfway between the passband and the stopband, which for a factor of
    /// 2 is a quarter of the rate: a half-band filter, every other tap zero, so half the work.
    private let usedTaps: [Int]
    private let usedWeights: [Float]
    private var phases: [Float] = []
    /// The block's outputs, computed here and then appended whole: appending zeros to write over
    /// went element by element, nearly a percent of `analyze`.
    private var computed: [Float] = []

    init(factor: Int, sampleRate: Int, passband: Double, stopbandDB: Double = 60) {
        precondition(factor >= 1)
        self.factor = factor
        if factor == 1 {
            taps = [1]
        } else {
            let rate = Double(sampleRate)
            let stop = rate / Double(factor) - passband
            precondition(stop > passband, "the new rate leaves no transition band above \(passband) Hz")
            // Kaiser's estimates of the length and the window's shape for that attenuation and band.
            let width = (stop - passband) / rate
            let length = Int(((stopbandDB - 7.95) / (14.36 * width)).rounded(.up)) + 1
            let beta = stopbandDB > 50 ? 0.1102 * (stopbandDB - 8.7) : 0.5842 * pow(stopbandDB - 21, 0.4) + 0.07886 * (stopbandDB - 21)
            let cutoff = (passband + stop) / 2 / rate
            let middle = Double(length - 1) / 2
            func bessel0(_ x: Double) -> Double {
                var sum = 1.0, term = 1.0, k = 1.0
                while term > 1e-12 * sum {
                    term *= (x / 2 / k) * (x / 2 / k)
                    sum += term
                    k += 1
                }
                return sum
            }
            let raw = (0..<length).map { n -> Double in
                let t = Double(n) - middle
                let sinc = t == 0 ? 2 * cutoff : sin(2 * Double.pi * cutoff * t) / (Double.pi * t)
                let ratio = middle > 0 ? t / middle : 0
                return sinc * bessel0(beta * sqrt(max(0, 1 - ratio * ratio))) / bessel0(beta)
            }
            let gain = raw.reduce(0, +)
            taps = raw.map { Float($0 / gain) }
        }
        history = Array(repeating: 0, count: taps.count - 1)
        let reversed = Array(taps.reversed()), largest = taps.map(abs).max()!
        usedTaps = reversed.indices.filter { abs(reversed[$0]) > 1e-6 * largest }
        usedWeights = usedTaps.map { reversed[$0] }
    }

    /// The decimated samples of `input`, appended to `output`.
    mutating func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        guard factor > 1 else {
            output.append(contentsOf: input)
            return
        }
        guard !input.isEmpty else { return }
        let factor = factor, kept = taps.count - 1
        // The samples this block's outputs read are the history, then the block: `total` of them,
        // read where they are rather than first copied together (a copy of every sample was a
        // percent of `analyze`'s time).
        let total = kept + input.count
        // Output j reads samples first + j·factor … first + j·factor + kept: `first` puts the
        // newest sample of the first output due in this block at the end of what it reads.
        let first = (factor - phase) % factor
        let count = input.count > first ? (input.count - 1 - first) / factor + 1 : 0
        // Each phase's samples side by side (phase p from p·stride), so that a tap meets eight
        // outputs' samples in one load.
        let stride = count + kept / factor + 1
        if phases.count < factor * stride { phases = Array(repeating: 0, count: factor * stride) }
        history.withUnsafeMutableBufferPointer { history in
            let history = history.baseAddress!, block = input.baseAddress!
            defer {
                // The last `kept` samples of history and block, for the next block.
                if input.count >= kept {
                    history.update(from: block + input.count - kept, count: kept)
                } else {
                    history.update(from: history + input.count, count: kept - input.count)
                    (history + kept - input.count).update(from: block, count: input.count)
                }
            }
            guard count > 0 else { return }
            phases.withUnsafeMutableBufferPointer { phases in
                let phases = phases.baseAddress!
                for p in 0..<factor {
                    var index = first + p, k = 0
                    while index < kept && k < stride {
                        phases[p * stride + k] = history[index]
                        index += factor
                        k += 1
                    }
                    if factor == 2 {
                        // 44.1 and 48 kHz: sixteen samples split into their two phases at once.
                        while index + 16 <= total && k + 8 <= stride {
                            let sixteen = UnsafeRawPointer(block + index - kept).loadUnaligned(as: SIMD16<Float>.self)
                            UnsafeMutableRawPointer(phases + p * stride + k).storeBytes(of: sixteen.evenHalf, as: SIMD8<Float>.self)
                            index += 16
                            k += 8
                        }
                    }
                    while index < total && k < stride {
                        phases[p * stride + k] = block[index - kept]
                        index += factor
                        k += 1
                    }
                }
                // Sample t of an output's read is in phase t % factor at offset t / factor.
                let reads = usedTaps.map { t in UnsafePointer(phases + (t % factor) * stride + t / factor) }
                if computed.count < count { computed = Array(repeating: 0, count: count) }
                computed.withUnsafeMutableBufferPointer { out in
                    let out = out.baseAddress!
                    usedWeights.withUnsafeBufferPointer { weights in
                        // Thirty-two outputs at a time, in four registers, so that each tap's weight
                        // and read position are fetched once for all four; then eight at a time.
                        // Each output's sum runs over the taps in the same order either way.
                        let used = weights.count
                        var j = 0
                        while j + 32 <= count {
                            var sums = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
                            for t in 0..<used {
                                let weight = SIMD8<Float>(repeating: weights[t]), read = UnsafeRawPointer(reads[t] + j)
                                sums.0 += weight * read.loadUnaligned(as: SIMD8<Float>.self)
                                sums.1 += weight * read.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
                                sums.2 += weight * read.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self)
                                sums.3 += weight * read.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self)
                            }
                            let write = UnsafeMutableRawPointer(out + j)
                            write.storeBytes(of: sums.0, as: SIMD8<Float>.self)
                            write.storeBytes(of: sums.1, toByteOffset: 32, as: SIMD8<Float>.self)
                            write.storeBytes(of: sums.2, toByteOffset: 64, as: SIMD8<Float>.self)
                            write.storeBytes(of: sums.3, toByteOffset: 96, as: SIMD8<Float>.self)
                            j += 32
                        }
                        while j + 8 <= count {
                            var sum = SIMD8<Float>()
                            for t in 0..<used { sum += weights[t] * UnsafeRawPointer(reads[t] + j).loadUnaligned(as: SIMD8<Float>.self) }
                            UnsafeMutableRawPointer(out + j).storeBytes(of: sum, as: SIMD8<Float>.self)
                            j += 8
                        }
                        while j < count {
                            var sum: Float = 0
                            for t in 0..<used { sum += weights[t] * reads[t][j] }
                            out[j] = sum
                            j += 1
                        }
                    }
                }
                output.append(contentsOf: computed[..<count])
            }
        }
        phase = (phase + input.count) % factor
    }
}
