import HearClearCore

/// Energy sums over the check-ins of a venue that count, for one cell of local time.
public struct LoudnessAggregate: Sendable, Equatable {
    /// Weekday 0 (Monday) … 6, or `LoudnessAggregate.everyWeekday`.
    public var weekday: Int
    /// Hour 0 … 23, or `LoudnessAggregate.everyHour`.
    public var hour: Int
    public var checkins: Int
    public var samples: Int
    public var energy: Double
    /// Sums of the C-weighted and octave-band energies, over the samples that carry them.
    public var details: DetailEnergies
    /// How the levels and Fast maxima of those samples spread.
    public var spread: LevelSpread
    /// In how many of those samples speech and music were detected.
    public var sounds: SoundCounts

    public static let everyWeekday = 7
    public static let everyHour = 24

    public init(
        weekday: Int, hour: Int, checkins: Int, samples: Int, energy: Double, details: DetailEnergies = .none, spread: LevelSpread = .empty,
        sounds: SoundCounts = .none
    ) {
        self.weekday = weekday
        self.hour = hour
        self.checkins = checkins
        self.samples = samples
        self.energy = energy
        self.details = details
        self.spread = spread
        self.sounds = sounds
    }

    public var cell: LocalHour { LocalHour(weekday: weekday, hour: hour) }

    public var levelDB: Double? {
        samples > 0 ? Level.level(energy: energy / Double(samples)) : nil
    }

    /// LCeq − LAeq; `nil` unless every kept second of the cell carried details, so that both
    /// levels cover the same seconds.
    public var cMinusA: Double? {
        guard samples > 0, details.samples == samples, let c = details.cLevelDB, let a = levelDB else { return nil }
        return c - a
    }
}
