import Foundation
import HearClearAnalysis

/// What the calibration page shows, read at once: the operators' offsets per device model, the
/// models seen, and the calibrations devices brought of their own.
public struct CalibrationTable: Sendable {
    /// Each model's offset, by model.
    public var offsets: [ModelOffset]
    /// Every device model seen, for adding rows.
    public var models: [String]
    /// The calibration each check-in brought of its own (`calibration_db`: `hearclear calibrate`,
    /// or the measuring page against a sound level meter), latest first, among the latest `window`
    /// check-ins received; banned devices left out.
    public var own: [OwnCalibration]

    /// How many of the latest check-ins are read for `own`: every one of a small deployment's, and
    /// a bounded read of a large one's (through the index of when they arrived).
    public static let window = 10_000

    public struct ModelOffset: Sendable {
        public var model: String
        public var offsetDB: Double
    }

    public struct OwnCalibration: Sendable {
        public var device: UUID
        public var model: String
        public var calibrationDB: Double
    }

    /// What one model's devices measured themselves.
    public struct Measured: Sendable, Equatable {
        public var model: String
        public var devices: Int
        /// The median of the devices' offsets, each device's latest.
        public var medianDB: Double
        public var lowestDB: Double
        public var highestDB: Double
    }

    /// Per model, what its devices measured: each device counted once, with its latest calibration,
    /// so that one device's many check-ins do not outvote the others; the median, which one
    /// mistyped reading does not move far. By model name.
    public var measured: [Measured] {
        var latest: [UUID: OwnCalibration] = [:]
        for calibration in own where latest[calibration.device] == nil { latest[calibration.device] = calibration }
        return Dictionary(grouping: latest.values, by: \.model).map { model, calibrations in
            let offsets = calibrations.map(\.calibrationDB).sorted()
            return Measured(
                model: model, devices: offsets.count, medianDB: Analysis.median(offsets), lowestDB: offsets[0], highestDB: offsets[offsets.count - 1])
        }.sorted { $0.model < $1.model }
    }
}
