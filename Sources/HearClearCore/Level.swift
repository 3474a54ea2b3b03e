import Foundation

/// Decibel arithmetic. Levels are logarithmic, so they are combined through their energies
/// (10^(L/10)), never averaged as numbers: two sources at 70 and 80 dB together read 80.4 dB, not 75.
public enum Level {
    /// The lowest level anything reports: digital silence would otherwise be −∞.
    public static let floor: Double = -160

    /// A second quieter than this holds no sound: it is below the own noise of any microphone and
    /// converter (the quietest 24-bit ones reach about −120 dBFS), so it comes from an input that
    /// was muted or gives zeros, never from a quiet room. Calibrated by the default 110 dB it would
    /// read −10 dB, below the threshold of hearing.
    public static let silenceDBFS: Double = -120

    /// Whether a level (dBFS, as measured) is silence in `silenceDBFS`'s sense.
    @inlinable
    public static func isSilence(_ level: Double) -> Bool {
        level < silenceDBFS
    }

    /// dB added to dBFS to estimate dB SPL when a microphone has not been calibrated
    /// (docs/analysis.md explains the choice). The server's default, and the client's for loud events.
    public static let defaultCalibrationDB: Double = 110

    /// What a level in dB SPL, or a calibration (the dB added to dBFS to read one), can plausibly
    /// be: from the threshold of hearing to past the loudest sound air carries. Not a number, or
    /// infinite, is outside it.
    public static let plausibleDB: ClosedRange<Double> = 0...200

    /// `between 0 and 200`, for the messages that refuse a value outside `plausibleDB`.
    public static let plausibleDBText = "between \(Int(plausibleDB.lowerBound)) and \(Int(plausibleDB.upperBound))"

    /// The energy (power ratio) of a level in dB.
    @inlinable
    public static func energy(_ level: Double) -> Double {
        pow(10, level / 10)
    }

    /// The level in dB of an energy (power ratio), floored at `Level.floor`.
    @inlinable
    public static func level(energy: Double) -> Double {
        guard energy > 0 else { return floor }
        return Swift.max(floor, 10 * log10(energy))
    }

    /// Leq: the energy mean of levels, 10·log10(mean(10^(L/10))). `nil` for no levels.
    public static func energyMean<Levels: Collection>(_ levels: Levels) -> Double? where Levels.Element == Double {
        guard !levels.isEmpty else { return nil }
        let sum = levels.reduce(0) { $0 + energy($1) }
        return level(energy: sum / Double(levels.count))
    }

    /// A level rounded to the tenth of a dB, the precision the API reports.
    @inlinable
    public static func rounded(_ level: Double) -> Double {
        (level * 10).rounded() / 10
    }

    /// A level in dBFS as it is uploaded: to the tenth, and never above full scale. After the
    /// weighting filters a full-scale or clipped recording reads a little over 0 dBFS (A adds
    /// 1.3 dB near 2.5 kHz, and a filter overshoots), which the server refuses as it refuses any
    /// level above 0: the whole check-in of a very loud venue was set aside for it.
    public static func uploaded(_ level: Double) -> Double {
        min(0, rounded(level))
    }

    /// A level in whole dB where space is short (heatmap cells), halves away from zero like
    /// `rounded`: the terminal and the pages show 64.5 as 65 alike.
    public static func whole(_ level: Double) -> Int {
        Int(level.rounded())
    }
}
