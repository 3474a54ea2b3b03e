/// What the meter measures each interval besides `avg` and `peak`, in dBFS like them (API v2):
/// what a conversation needs to be judged by.
public struct LevelDetails: Sendable, Equatable {
    /// The highest Fast time-weighted level (τ = 125 ms) of the weighted signal in the interval:
    /// short bursts (a dropped plate, a shout) that the average hides.
    public var fastMax: Double
    /// The C-weighted Leq: far above the A-weighted one when the sound is bass-heavy.
    public var cAvg: Double
    // The bands are stored inline, not as an array: a check-in holds one of these per second, and
    // an array made each second an allocation and a reference to count (a fifth of the server's
    // allocations under the ingest case, `perf probe` on malloc), where four values keep `Sample`
    // a plain value.
    private var octave500: Double
    private var octave1000: Double
    private var octave2000: Double
    private var octave4000: Double

    public static let octaveNames = ["oct_500", "oct_1000", "oct_2000", "oct_4000"]

    /// The Fast time constant of IEC 61672-1, seconds.
    public static let fastTimeConstant = 0.125

    public init(fastMax: Double, cAvg: Double, octaves: [Double]) {
        precondition(octaves.count == Self.octaveNames.count)
        self.init(fastMax: fastMax, cAvg: cAvg) { octaves[$0] }
    }

    /// With the band of each index in `octaveNames` from `octave`.
    public init(fastMax: Double, cAvg: Double, octave: (Int) throws -> Double) rethrows {
        self.fastMax = fastMax
        self.cAvg = cAvg
        (octave500, octave1000, octave2000, octave4000) = (try octave(0), try octave(1), try octave(2), try octave(3))
    }

    /// Unweighted Leq in the octave bands 500, 1000, 2000 and 4000 Hz, in that order.
    public var octaves: [Double] { [octave500, octave1000, octave2000, octave4000] }

    /// The band at `index` of `octaveNames`, without making the array `octaves` is.
    public func octave(_ index: Int) -> Double {
        switch index {
        case 0: octave500
        case 1: octave1000
        case 2: octave2000
        case 3: octave4000
        default: preconditionFailure("octave band \(index) of 4")
        }
    }

    /// The speech interference level (ISO 9921, SIL4): the arithmetic mean of the four band levels.
    public var sil: Double { (octave500 + octave1000 + octave2000 + octave4000) / Double(Self.octaveNames.count) }

    /// Every level to the tenth of a dB, as uploaded.
    public var rounded: LevelDetails {
        LevelDetails(fastMax: Level.uploaded(fastMax), cAvg: Level.uploaded(cAvg)) { Level.uploaded(octave($0)) }
    }
}
