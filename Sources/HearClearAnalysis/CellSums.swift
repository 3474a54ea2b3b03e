import Foundation
import HearClearCore

/// The sums a check-in's local hour (`checkin_hour`) and a venue's cell (`loudness`) keep of the
/// kept seconds they hold: how many, their energy, their details' energies, how their levels spread
/// and in how many speech and music were detected. They add, and sum again, exactly alike.
///
/// Both stores read and write these sums through `columns` and `storedValues`, in that order, so a
/// new per-second measure that cells sum is added here, once, and in a migration per store.
public struct CellSums: Sendable, Equatable {
    /// Kept seconds: a sample of an interval of n seconds counts n (`CheckInAnalysis.seconds(perInterval:)`).
    public var samples: Int
    /// Sum of the energies of the kept, calibrated levels.
    public var energy: Double
    /// The same for the details of those samples that carry them.
    public var details: DetailEnergies
    /// How the kept samples' calibrated levels and Fast maxima spread.
    public var spread: LevelSpread
    /// In how many kept samples speech and music were detected.
    public var sounds: SoundCounts

    public static let none = CellSums(samples: 0, energy: 0)

    public init(samples: Int, energy: Double, details: DetailEnergies = .none, spread: LevelSpread = .empty, sounds: SoundCounts = .none) {
        self.samples = samples
        self.energy = energy
        self.details = details
        self.spread = spread
        self.sounds = sounds
    }

    /// The columns holding these sums, the same names in `checkin_hour` and `loudness`, in the order of `storedValues`.
    public static let columns: [StoredColumn] =
        [StoredColumn("samples", .integer), StoredColumn("energy", .real), StoredColumn(DetailEnergies.columns[0], .integer)]
        + DetailEnergies.columns.dropFirst().map { StoredColumn($0, .real) }
        + LevelSpread.columns.map { StoredColumn($0, .bytes) }
        + SoundCounts.columns.map { StoredColumn($0, .integer) }

    /// The names of `columns`, each after `table.` when given, as a select or insert list.
    public static func columnList(of table: String? = nil) -> String {
        columns.map { column in table.map { "\($0).\(column.name)" } ?? column.name }.joined(separator: ", ")
    }

    /// The values of `columns`, in their order.
    public var storedValues: [StoredValue] {
        [.integer(samples), .real(energy), .integer(details.samples)] + details.energies.map(StoredValue.real)
            + spread.storedValues.map(StoredValue.bytes) + sounds.values.map(StoredValue.integer)
    }

    /// The sums a row holds in `columns`, in their order; a value of the wrong kind or an
    /// unreadable histogram is refused.
    public init(stored values: some Collection<StoredValue>) throws {
        let values = Array(values)
        guard values.count == Self.columns.count else { throw StoredValue.Unexpected(column: "sums", found: "\(values.count) values") }
        func integer(_ index: Int) throws -> Int { try values[index].integer(column: Self.columns[index].name) }
        func real(_ index: Int) throws -> Double { try values[index].real(column: Self.columns[index].name) }
        let octaves = DetailEnergies.columns.count - 2
        let spreadStart = 4 + octaves, soundStart = spreadStart + LevelSpread.columns.count
        self.init(
            samples: try integer(0), energy: try real(1),
            details: DetailEnergies(samples: try integer(2), energies: try (3..<spreadStart).map(real)),
            spread: try LevelSpread(stored: (spreadStart..<soundStart).map { try values[$0].bytes(column: Self.columns[$0].name) }),
            sounds: SoundCounts(values: try (soundStart..<values.count).map(integer)))
    }

    /// One kept sample more, whose calibrated level has `energy` and which lasted `seconds`: every
    /// sum counts seconds, so that a level is an energy mean over time whatever the intervals a
    /// check-in was measured in.
    mutating func add(_ sample: Sample, energy: Double, calibrationDB: Double, seconds: Int) {
        samples += seconds
        self.energy += energy * Double(seconds)
        if let details = sample.details { self.details.add(details, calibrationDB: calibrationDB, seconds: seconds) }
        spread.add(levelDB: sample.avg + calibrationDB, fastMaxDB: sample.details.map { $0.fastMax + calibrationDB }, seconds: seconds)
        if let classes = sample.classes { sounds.add(classes, seconds: seconds) }
    }

    public mutating func add(_ other: CellSums) {
        self = adding(other)
    }

    public func adding(_ other: CellSums) -> CellSums {
        CellSums(
            samples: samples + other.samples, energy: energy + other.energy, details: details.adding(other.details), spread: spread.adding(other.spread),
            sounds: sounds.adding(other.sounds))
    }

    /// `other` taken away: counts and histograms exactly, energies as floating point subtracts them,
    /// each to 0 when no sample is left; `nil` when `other` holds seconds these do not. Rounding
    /// can leave an energy far from what the seconds left add up to: see
    /// `LoudnessAggregate.shifted(checkins:removing:adding:)`, the one caller, which bounds it.
    func removing(_ other: CellSums) -> CellSums? {
        guard samples >= other.samples, let details = details.removing(other.details), let spread = spread.removing(other.spread),
            let sounds = sounds.removing(other.sounds)
        else { return nil }
        return CellSums(
            samples: samples - other.samples, energy: samples == other.samples ? 0 : energy - other.energy, details: details, spread: spread, sounds: sounds)
    }

    /// The energy of the samples, then those of their details, as `Analysis` bounds their rounding.
    var energies: [Double] { [energy] + details.energies }

    /// Equal counts and histograms, and energies equal within the error of summing in another order.
    public func matches(_ other: CellSums) -> Bool {
        samples == other.samples && Analysis.equalWithinRounding(energy, other.energy) && details.matches(other.details) && spread == other.spread
            && sounds == other.sounds
    }

    /// The same seconds after a new calibration: every energy scaled alike, every histogram moved alike.
    public func recalibrated(byDB shift: Double) -> CellSums {
        let factor = Level.energy(shift)
        return CellSums(
            samples: samples, energy: energy * factor, details: details.scaled(by: factor), spread: spread.shifted(byDB: shift), sounds: sounds)
    }
}
