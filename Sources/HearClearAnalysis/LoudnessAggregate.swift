import HearClearCore

/// Energy sums over the check-ins of a venue that count, for one cell of local time.
public struct LoudnessAggregate: Sendable, Equatable {
    /// Weekday 0 (Monday) … 6, or `LoudnessAggregate.everyWeekday`.
    public var weekday: Int
    /// Hour 0 … 23, or `LoudnessAggregate.everyHour`.
    public var hour: Int
    public var checkins: Int
    /// What the kept seconds of those check-ins in this cell add up to.
    public var sums: CellSums
    /// How far each of `sums`' energies may be from adding up its seconds afresh, as a share of it,
    /// beyond the order they were added in: 0 for energies only ever added, more once one was
    /// taken away (`shifted(checkins:removing:adding:)`).
    public var rounding: Double

    public static let everyWeekday = 7
    public static let everyHour = 24

    /// The columns of `loudness` after its key (venue, weekday, hour), the same in both stores:
    /// the check-in count, `CellSums.columns`, the rounding.
    public static let columns = ["checkins"] + CellSums.columns.map(\.name) + ["rounding"]

    public init(weekday: Int, hour: Int, checkins: Int, sums: CellSums, rounding: Double = 0) {
        self.weekday = weekday
        self.hour = hour
        self.checkins = checkins
        self.sums = sums
        self.rounding = rounding
    }

    public init(
        weekday: Int, hour: Int, checkins: Int, samples: Int, energy: Double, details: DetailEnergies = .none, spread: LevelSpread = .empty,
        sounds: SoundCounts = .none
    ) {
        self.init(
            weekday: weekday, hour: hour, checkins: checkins, sums: CellSums(samples: samples, energy: energy, details: details, spread: spread, sounds: sounds))
    }

    public var cell: LocalHour { LocalHour(weekday: weekday, hour: hour) }

    // The answers read a cell's sums by these names.
    public var samples: Int { sums.samples }
    public var energy: Double { sums.energy }
    /// Sums of the C-weighted and octave-band energies, over the samples that carry them.
    public var details: DetailEnergies { sums.details }
    /// How the levels and Fast maxima of those samples spread.
    public var spread: LevelSpread { sums.spread }
    /// In how many of those samples speech and music were detected.
    public var sounds: SoundCounts { sums.sounds }

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
