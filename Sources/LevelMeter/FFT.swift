import Foundation

/// An in-place radix-2 FFT of one fixed power-of-two size, its twiddles computed once. Written here
/// because no library this project may use has one for Linux (Accelerate's vDSP is Apple's only);
/// the sound features need a few hundred points a frame, where this plain form is fast enough.
struct FFT: Sendable {
    let size: Int
    private let cosines: [Double]
    private let sines: [Double]
    private let reversed: [Int]

    init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "the FFT size must be a power of two")
        self.size = size
        cosines = (0..<size / 2).map { cos(-2 * Double.pi * Double($0) / Double(size)) }
        sines = (0..<size / 2).map { sin(-2 * Double.pi * Double($0) / Double(size)) }
        let bits = size.trailingZeroBitCount
        reversed = (0..<size).map { index in
            var value = 0
            for bit in 0..<bits where index & (1 << bit) != 0 { value |= 1 << (bits - 1 - bit) }
            return value
        }
    }

    /// The forward transform of (`real`, `imaginary`), in place.
    func transform(_ real: inout [Double], _ imaginary: inout [Double]) {
        for index in 0..<size where index < reversed[index] {
            real.swapAt(index, reversed[index])
            imaginary.swapAt(index, reversed[index])
        }
        var half = 1
        while half < size {
            let stride = size / (2 * half)
            for start in Swift.stride(from: 0, to: size, by: 2 * half) {
                for k in 0..<half {
                    let c = cosines[k * stride], s = sines[k * stride]
                    let a = start + k, b = a + half
                    let re = real[b] * c - imaginary[b] * s
                    let im = real[b] * s + imaginary[b] * c
                    real[b] = real[a] - re
                    imaginary[b] = imaginary[a] - im
                    real[a] += re
                    imaginary[a] += im
                }
            }
            half *= 2
        }
    }

    /// |X(k)|² for k in 0 … size/2 of a real signal.
    func powerSpectrum(of signal: [Double]) -> [Double] {
        var real = signal, imaginary = [Double](repeating: 0, count: size)
        transform(&real, &imaginary)
        return (0...size / 2).map { real[$0] * real[$0] + imaginary[$0] * imaginary[$0] }
    }
}
