/// What the meter measures each interval besides `avg` and `peak`, in dBFS like them (API v2):
/// what a conversation needs to be judged by.
public struct LevelDetails: Sendable, Equatable {
    /// The highest Fast time-weighted level (τ = 125 ms) of the weighted signal in the interval:
    /// short bursts (a dropped plate, a shout) that the average hides.
    public var fastMax: Double
    /// The C-weighted Leq: far above the A-weighted one when the sound is bass-heavy.
    public var cAvg: Double
    /// Unweighted Leq in the octave bands 500, 1000, 2000 and 4000 Hz, in that order.
    public var octaves: [Double]

    public static let octaveNames = ["oct_500", "oct_1000", "oct_2000", "oct_4000"]

    /// The Fast time constant of IEC 61672-1, seconds.
    public static let fastTimeConstant = 0.125

    public init(fastMax: Double, cAvg: Double, octaves: [Double]) {
        precondition(octaves.count == Self.octaveNames.count)
        self.fastMax = fastMax
        self.cAvg = cAvg
        self.octaves = octaves
    }

    /// The speech interference level (ISO 9921, SIL4): the arithmetic mean of the four band levels.
    public var sil: Double { octaves.reduce(0, +) / Double(octaves.count) }

    /// Every level to the tenth of a dB, as uploaded.
    public var rounded: LevelDetails {
        LevelDetails(fastMax: Level.uploaded(fastMax), cAvg: Level.uploaded(cAvg), octaves: octaves.map(Level.uploaded))
    }
}
