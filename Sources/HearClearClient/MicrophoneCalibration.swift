import Foundation
import HearClearCore

/// `hearclear calibrate --reading DB`: a microphone's calibration from a steady sound it measured
/// while a sound level meter beside it read `reading` dB(A) — the meter's reading less the
/// microphone's Leq in dBFS, to the tenth of a dB (what a meter shows). Refused, with what to do,
/// where the difference would not be the microphone's: too short to be sure, a sound that moved
/// (meter and microphone read different moments of it), the microphone hearing almost nothing
/// (muted, or another device), or a sound at its full scale (the loud part is cut off, so the
/// level reads low).
public struct MicrophoneCalibration: Sendable, Equatable {
    /// The sound as the microphone heard it: Leq, dBFS (A-weighted).
    public let leqDBFS: Double
    /// How far its full intervals' levels ranged, dB.
    public let rangeDB: Double
    public let seconds: Double
    public let calibrationDB: Double

    /// Its limits, which the measuring page applies too (the meter design's `calibration`).
    public static let rule = CalibrationRule.standard

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case tooShort(seconds: Double)
        case unsteady(rangeDB: Double, seconds: Double)
        case silent(leqDBFS: Double)
        case clipped(peakDBFS: Double)
        case implausible(calibrationDB: Double)

        public var description: String {
            switch self {
            case .tooShort(let seconds):
                String(format: "only %.1f s were measured: calibrate over at least %g s of the steady sound", seconds, MicrophoneCalibration.rule.shortestS)
            case .unsteady(let range, let seconds):
                String(format: "the sound was not steady: its level moved over %.1f dB in %@, so the meter and the microphone may have read different moments of it. Calibrate against a steady sound (pink noise, a fan), within %g dB", range, Terminal.clock(seconds), MicrophoneCalibration.rule.steadyWithinDB)
            case .silent(let leq):
                String(format: "the microphone heard almost nothing (Leq %.1f dBFS): is it muted, or is another --device the microphone? (`hearclear devices` lists them)", leq)
            case .clipped(let peak):
                String(format: "the sound reached the microphone's full scale (peak %.1f dBFS), so it reads lower than it is: turn the sound down, or move the microphone away from it", peak)
            case .implausible(let calibration):
                String(format: "the reading and the microphone's level give a calibration of %.1f dB, and a calibration must be %@ dB: is the reading in dB?", calibration, Level.plausibleDBText)
            }
        }
    }

    /// From the intervals measured (each with how long it lasted: the interval's length, or less
    /// for a last, partial one) and the meter's reading in dB(A).
    public init(reading: Double, intervals: [(sample: Sample, seconds: Double)]) throws(Problem) {
        let seconds = intervals.reduce(0) { $0 + $1.seconds }
        guard seconds >= Self.rule.shortestS else { throw .tooShort(seconds: seconds) }
        let leq = Level.level(energy: intervals.reduce(0) { $0 + Level.energy($1.sample.avg) * $1.seconds } / seconds)
        guard leq >= Self.rule.quietestDBFS else { throw .silent(leqDBFS: leq) }
        let peak = intervals.map(\.sample.peak).max() ?? Level.floor
        guard peak < Self.rule.loudestPeakDBFS else { throw .clipped(peakDBFS: peak) }
        // A last, partial interval is a fraction of a second of the sound: not its steadiness.
        let longest = intervals.map(\.seconds).max() ?? 0
        let levels = intervals.filter { $0.seconds == longest }.map(\.sample.avg)
        let range = (levels.max() ?? 0) - (levels.min() ?? 0)
        guard range <= Self.rule.steadyWithinDB else { throw .unsteady(rangeDB: range, seconds: seconds) }
        let calibration = Level.rounded(reading - leq)
        guard Level.plausibleDB.contains(calibration) else { throw .implausible(calibrationDB: calibration) }
        leqDBFS = leq
        rangeDB = range
        self.seconds = seconds
        calibrationDB = calibration
    }

    /// `Leq -40.51 dBFS over 00:10, steady within 0.3 dB: 71.5 dB(A) on the meter makes the calibration 112 dB.`
    public func saying(reading: Double) -> String {
        String(
            format: "Leq %.2f dBFS over %@, steady within %.1f dB: %g dB(A) on the meter makes the calibration %g dB.", leqDBFS,
            Terminal.clock(seconds), rangeDB, reading, calibrationDB)
    }
}
