import HearClearCore

/// Energy sums of what API v2 check-ins measure besides the A-weighted level: the C-weighted level
/// and the four octave bands, over the kept samples that carry them (API v1 check-ins carry none,
/// so a cell's details may rest on fewer samples than its level). Levels are calibrated first, as
/// for the A-weighted energy.
public struct DetailEnergies: Sendable, Equatable {
    public var samples: Int
    public var c: Double
    /// 500, 1000, 2000 and 4000 Hz.
    public var octaves: [Double]

    public static let none = DetailEnergies(samples: 0, c: 0, octaves: [0, 0, 0, 0])

    public init(samples: Int, c: Double, octaves: [Double]) {
        precondition(octaves.count == LevelDetails.octaveNames.count)
        self.samples = samples
        self.c = c
        self.octaves = octaves
    }

    /// The store's columns, in the order of `values`: the same names in `checkin_hour` and `loudness`.
    public static let columns = ["detail_samples", "c_energy"] + LevelDetails.octaveNames.map { "\($0)_energy" }

    /// The energies in the order of `columns` after the count.
    public var energies: [Double] { [c] + octaves }

    public init(samples: Int, energies: [Double]) {
        self.init(samples: samples, c: energies[0], octaves: Array(energies.dropFirst()))
    }

    mutating func add(_ details: LevelDetails, calibrationDB: Double, seconds: Int) {
        samples += seconds
        c += Level.energy(details.cAvg + calibrationDB) * Double(seconds)
        for index in octaves.indices { octaves[index] += Level.energy(details.octave(index) + calibrationDB) * Double(seconds) }
    }

    public func adding(_ other: DetailEnergies) -> DetailEnergies {
        DetailEnergies(samples: samples + other.samples, energies: zip(energies, other.energies).map(+))
    }

    /// `other` taken away: its count exactly, its energies as floating point subtracts them, to 0
    /// when no sample is left; `nil` when the count would fall below 0.
    func removing(_ other: DetailEnergies) -> DetailEnergies? {
        guard samples >= other.samples else { return nil }
        return samples == other.samples ? .none : DetailEnergies(samples: samples - other.samples, energies: zip(energies, other.energies).map(-))
    }

    /// Every energy multiplied by `factor`: a new calibration moves every level alike.
    public func scaled(by factor: Double) -> DetailEnergies {
        DetailEnergies(samples: samples, energies: energies.map { $0 * factor })
    }

    /// Equal counts, and energies equal within the error of summing in another order.
    public func matches(_ other: DetailEnergies) -> Bool {
        samples == other.samples && zip(energies, other.energies).allSatisfy { Analysis.equalWithinRounding($0, $1) }
    }

    /// The energy means as levels (C, then the bands); `nil` when no sample carried details.
    public var cLevelDB: Double? { samples > 0 ? Level.level(energy: c / Double(samples)) : nil }
    public var octaveLevelsDB: [Double]? { samples > 0 ? octaves.map { Level.level(energy: $0 / Double(samples)) } : nil }
}
