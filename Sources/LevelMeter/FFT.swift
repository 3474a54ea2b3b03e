import Foundation

/// The discrete Fourier transform of real frames of one power-of-two size, through a complex FFT of
/// half the size (even samples as real parts, odd ones as imaginary, then split), into buffers it
/// owns, so a frame allocates nothing. Written here because no library this project may use has an
/// FFT for Linux (Accelerate's vDSP is Apple's only); the sound features run one or two of a few
/// hundred points per frame, 30 frames a second, so this is on the meter's hot path: written with
/// unchecked pointers, four butterflies at a time, in Float (the features are logarithms of band
/// energies and a correlation, far coarser than Float's 24 bits).
struct RealFFT: Sendable {
    let size: Int
    /// Bins 0 … size/2 of the last `transform`: X(k) = Σ x(n)·e^(−2πikn/size).
    private(set) var real: [Float]
    private(set) var imaginary: [Float]
    private let window: [Float]
    private var packedReal: [Float]
    private var packedImaginary: [Float]
    /// e^(−2πik/(2h)) for k in 0 ..< h, for each stage's half-width h = 1, 2, 4 …, one after another.
    private let stageCosines: [Float]
    private let stageSines: [Float]
    /// e^(−2πik/size) for k in 0 ... size/2, for the split.
    private let splitCosines: [Float]
    private let splitSines: [Float]
    private let reversed: [Int]

    /// `window`: `size` weights the signal is multiplied by (none: all ones).
    init(size: Int, window: [Float]? = nil) {
        precondition(size >= 8 && size & (size - 1) == 0, "the FFT size must be a power of two, 8 or more")
        precondition(window == nil || window?.count == size, "the window must have the transform's size")
        self.size = size
        self.window = window ?? Array(repeating: 1, count: size)
        let half = size / 2
        real = Array(repeating: 0, count: half + 1)
        imaginary = Array(repeating: 0, count: half + 1)
        packedReal = Array(repeating: 0, count: half)
        packedImaginary = Array(repeating: 0, count: half)
        var cosines: [Float] = [], sines: [Float] = []
        var width = 1
        while width < half {
            for k in 0..<width {
                cosines.append(Float(cos(-Double.pi * Double(k) / Double(width))))
                sines.append(Float(sin(-Double.pi * Double(k) / Double(width))))
            }
            width *= 2
        }
        stageCosines = cosines
        stageSines = sines
        splitCosines = (0...half).map { Float(cos(-2 * Double.pi * Double($0) / Double(size))) }
        splitSines = (0...half).map { Float(sin(-2 * Double.pi * Double($0) / Double(size))) }
        let bits = half.trailingZeroBitCount
        reversed = (0..<half).map { index in
            var value = 0
            for bit in 0..<bits where index & (1 << bit) != 0 { value |= 1 << (bits - 1 - bit) }
            return value
        }
    }

    /// Transforms `signal` (`size` values) multiplied by the window, into `real` and `imaginary`.
    mutating func transform(_ signal: UnsafePointer<Float>) {
        let half = size / 2
        packedReal.withUnsafeMutableBufferPointer { re in
            packedImaginary.withUnsafeMutableBufferPointer { im in
                // The first two stages at once, reading the input in bit-reversed order: their
                // twiddles are 1 and −i, no multiplications.
                reversed.withUnsafeBufferPointer { reversed in
                    window.withUnsafeBufferPointer { window in
                        for start in stride(from: 0, to: half, by: 4) {
                            @inline(__always) func input(_ offset: Int) -> (re: Float, im: Float) {
                                let n = 2 * reversed[start + offset]
                                return (signal[n] * window[n], signal[n + 1] * window[n + 1])
                            }
                            let x0 = input(0), x1 = input(1), x2 = input(2), x3 = input(3)
                            let sumRe = x0.re + x1.re, sumIm = x0.im + x1.im
                            let differenceRe = x0.re - x1.re, differenceIm = x0.im - x1.im
                            let nextSumRe = x2.re + x3.re, nextSumIm = x2.im + x3.im
                            let nextDifferenceRe = x2.re - x3.re, nextDifferenceIm = x2.im - x3.im
                            re[start] = sumRe + nextSumRe
                            im[start] = sumIm + nextSumIm
                            re[start + 2] = sumRe - nextSumRe
                            im[start + 2] = sumIm - nextSumIm
                            re[start + 1] = differenceRe + nextDifferenceIm
                            im[start + 1] = differenceIm - nextDifferenceRe
                            re[start + 3] = differenceRe - nextDifferenceIm
                            im[start + 3] = differenceIm + nextDifferenceRe
                        }
                    }
                }
                stageCosines.withUnsafeBufferPointer { cosines in
                    stageSines.withUnsafeBufferPointer { sines in
                        var width = 4, offset = 3
                        while width < half {
                            var start = 0
                            while start < half {
                                // Four butterflies at a time (widths from 4 on are multiples of 4).
                                for k in stride(from: 0, to: width, by: 4) {
                                    let c = Self.four(cosines.baseAddress!, offset + k), s = Self.four(sines.baseAddress!, offset + k)
                                    let a = start + k, b = a + width
                                    let reA = Self.four(re.baseAddress!, a), imA = Self.four(im.baseAddress!, a)
                                    let reB = Self.four(re.baseAddress!, b), imB = Self.four(im.baseAddress!, b)
                                    let br = reB * c - imB * s, bi = reB * s + imB * c
                                    Self.store(reA - br, re.baseAddress!, b)
                                    Self.store(imA - bi, im.baseAddress!, b)
                                    Self.store(reA + br, re.baseAddress!, a)
                                    Self.store(imA + bi, im.baseAddress!, a)
                                }
                                start += 2 * width
                            }
                            offset += width
                            width *= 2
                        }
                    }
                }
                // Z = E + i·O of the even (E) and odd (O) samples' transforms; X(k) = E(k) + e^(−2πik/size)·O(k).
                real.withUnsafeMutableBufferPointer { xr in
                    imaginary.withUnsafeMutableBufferPointer { xi in
                        splitCosines.withUnsafeBufferPointer { cosines in
                            splitSines.withUnsafeBufferPointer { sines in
                                let mask = half - 1
                                for k in 0...half {
                                    let a = re[k & mask], b = im[k & mask], c = re[(half - k) & mask], d = im[(half - k) & mask]
                                    let er = (a + c) / 2, ei = (b - d) / 2
                                    let or = (b + d) / 2, oi = (c - a) / 2
                                    xr[k] = er + cosines[k] * or - sines[k] * oi
                                    xi[k] = ei + cosines[k] * oi + sines[k] * or
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @inline(__always) private static func four(_ values: UnsafePointer<Float>, _ index: Int) -> SIMD4<Float> {
        UnsafeRawPointer(values + index).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always) private static func store(_ four: SIMD4<Float>, _ values: UnsafeMutablePointer<Float>, _ index: Int) {
        UnsafeMutableRawPointer(values + index).storeBytes(of: four, as: SIMD4<Float>.self)
    }
}
