import HearClearCore
import LevelMeter

/// What `meter` and `checkin` show while measuring: each interval's meter line with the loud
/// events so far and what it holds (speech, music), and the run's Leq at the end.
public struct LiveMeter: Sendable {
    let terminal: Terminal
    let total: Double?
    /// dB added to dBFS; nil shows dBFS.
    let calibrationDB: Double?
    let interval: Double
    private var detector: LoudEventDetector
    private var closedEvents = 0
    /// The energy of the intervals so far, each times its length, and their length in all.
    private var energySeconds = 0.0
    private var seconds = 0.0
    /// Seconds that held no sound (`Level.isSilence`).
    private var silentSeconds = 0.0

    public init(terminal: Terminal, total: Double?, calibrationDB: Double?, interval: Double) {
        self.terminal = terminal
        self.total = total
        self.calibrationDB = calibrationDB
        self.interval = interval
        // Loud is judged in dB, so an uncalibrated meter uses the default calibration, as check-ins do.
        detector = LoudEventDetector(calibrationDB: calibrationDB ?? Level.defaultCalibrationDB)
    }

    /// Loud events so far, the one still going included.
    public var events: Int { closedEvents + (detector.isOpen ? 1 : 0) }

    /// Takes an interval, which lasted `seconds` (less than the interval for a last, partial one),
    /// and returns the meter line after it.
    public mutating func line(after sample: Sample, seconds: Double) -> String {
        if detector.add(sample, interval: interval) != nil { closedEvents += 1 }
        energySeconds += Level.energy(sample.avg) * seconds
        self.seconds += seconds
        if Level.isSilence(sample.avg) { silentSeconds += seconds }
        return terminal.meterLine(
            elapsed: sample.t + seconds, total: total, average: sample.avg, peak: sample.peak, calibrationDB: calibrationDB, events: events,
            classes: sample.classes)
    }

    /// The run's equivalent level: `Leq -40.52 dBFS over 00:30`, with the calibrated level when
    /// there is one, and how long it held no sound, if it did.
    public var summary: String? {
        guard seconds > 0 else { return nil }
        let leq = Level.level(energy: energySeconds / seconds)
        let duration = Terminal.clock(seconds)
        let silence = silentSeconds > 0 ? "; \(Terminal.clock(silentSeconds)) of no sound at all (is the microphone muted?)" : ""
        return String(format: "Leq %.2f dBFS over %@%@, ", leq, duration, Self.calibrated(leq, calibrationDB)) + events.counted("loud event") + silence
    }

    /// ` (70.0 dB with the calibration of 110 dB)` after a dBFS level, or nothing without a calibration;
    /// `isDefault` says ` (… with the default calibration of 110 dB)`, where no calibration was set.
    public static func calibrated(_ level: Double, _ calibrationDB: Double?, isDefault: Bool = false) -> String {
        calibrationDB.map { String(format: " (%.1f dB with the %@calibration of %g dB)", level + $0, isDefault ? "default " : "", $0) } ?? ""
    }
}
