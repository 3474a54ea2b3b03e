import CFFTW
import Synchronization

/// The discrete Fourier transform of real frames of one size, through FFTW (libfftw3f, single
/// precision), into a buffer it owns, so a frame allocates nothing. FFTW replaced a transform
/// written here, which was slower and took powers of two only (docs/sound-classes.md, "What it
/// costs"). Plans are made with `FFTW_ESTIMATE`, so the same input gives the same bits on every run
/// (a measured plan may pick another algorithm), which `make train-classes` needs to write the same
/// model twice.
///
/// A class, as it owns FFTW's buffers and plan; each meter makes its own and uses it from one task
/// at a time, hence `@unchecked Sendable`.
final class RealFFT: @unchecked Sendable {
    let size: Int
    private let window: [Float]
    private let input: UnsafeMutablePointer<Float>
    /// Bins 0 … size/2 of the last `transform`, real and imaginary parts interleaved:
    /// X(k) = Σ x(n)·e^(−2πikn/size).
    private let output: UnsafeMutablePointer<Float>
    private let plan: fftwf_plan

    /// FFTW's planner keeps global state: plans are made and destroyed one at a time (executing
    /// different plans at once is safe).
    private static let planner = Mutex(())
    /// `FFTW_ESTIMATE`, a macro Swift does not import.
    private static let estimate: UInt32 = 1 << 6

    /// `window`: `size` weights the signal is multiplied by (none: all ones).
    init(size: Int, window: [Float]? = nil) {
        precondition(size >= 8 && size % 2 == 0, "the transform's size must be even, 8 or more")
        precondition(window == nil || window?.count == size, "the window must have the transform's size")
        self.size = size
        self.window = window ?? Array(repeating: 1, count: size)
        let input = fftwf_alloc_real(size)!
        let bins = size / 2 + 1
        let complex = fftwf_alloc_complex(bins)!
        self.input = input
        output = UnsafeMutableRawPointer(complex).bindMemory(to: Float.self, capacity: 2 * bins)
        // (Addresses as integers: the lock's closure must not capture pointers, which are not Sendable.)
        let (inputAddress, outputAddress) = (Int(bitPattern: input), Int(bitPattern: complex))
        let plan = Self.planner.withLock { _ in
            fftwf_plan_dft_r2c_1d(
                Int32(size), UnsafeMutablePointer(bitPattern: inputAddress), UnsafeMutablePointer(bitPattern: outputAddress), Self.estimate)
        }
        self.plan = plan!
    }

    deinit {
        Self.planner.withLock { _ in fftwf_destroy_plan(plan) }
        fftwf_free(input)
        fftwf_free(output)
    }

    /// Transforms `signal` (`size` values) multiplied by the window.
    func transform(_ signal: UnsafePointer<Float>) {
        window.withUnsafeBufferPointer { window in
            // Eight at a time (the compiler left this loop a product at a time): the same products.
            let (signal8, window8, input8) = (UnsafeRawPointer(signal), UnsafeRawPointer(window.baseAddress!), UnsafeMutableRawPointer(input))
            var n = 0
            while n + 8 <= size {
                let product = signal8.loadUnaligned(fromByteOffset: 4 * n, as: SIMD8<Float>.self)
                    * window8.loadUnaligned(fromByteOffset: 4 * n, as: SIMD8<Float>.self)
                input8.storeBytes(of: product, toByteOffset: 4 * n, as: SIMD8<Float>.self)
                n += 8
            }
            while n < size {
                input[n] = signal[n] * window[n]
                n += 1
            }
        }
        fftwf_execute(plan)
    }

    func real(_ bin: Int) -> Float { output[2 * bin] }
    func imaginary(_ bin: Int) -> Float { output[2 * bin + 1] }

    /// The real parts of `bins` of the last `transform`, into `reals`.
    func reals(_ bins: ClosedRange<Int>, into reals: UnsafeMutablePointer<Float>) {
        for (index, bin) in bins.enumerated() { reals[index] = output[2 * bin] }
    }

    /// |X(k)|² of bins 0 … size/2 of the last `transform`, into `power`.
    func power(into power: UnsafeMutableBufferPointer<Float>) {
        for bin in 0...(size / 2) {
            let re = output[2 * bin], im = output[2 * bin + 1]
            power[bin] = re * re + im * im
        }
    }
}
