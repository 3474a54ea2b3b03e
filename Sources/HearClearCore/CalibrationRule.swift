/// When a microphone's level beside a sound level meter's reading makes a calibration: how long
/// the steady sound is measured, and the limits past which the difference would not be the
/// microphone's. `hearclear calibrate --reading` applies it (`MicrophoneCalibration`), and the
/// meter design hands it to the measuring page, which applies the same limits in the browser.
public struct CalibrationRule: Codable, Sendable, Equatable {
    /// How long the sound is measured unless told otherwise.
    public var measuredS: Double
    /// Fewer seconds than this say too little of the sound.
    public var shortestS: Double
    /// Full intervals' levels farther apart than this, and meter and microphone may well have read
    /// different moments of the sound.
    public var steadyWithinDB: Double
    /// A Leq below this, dBFS, is the microphone's own noise rather than the sound.
    public var quietestDBFS: Double
    /// A peak at or above this, dBFS, is a sound the microphone may have clipped.
    public var loudestPeakDBFS: Double
    /// The calibrations a check-in may carry (`Level.plausibleDB`), lowest and highest.
    public var plausibleDB: [Double]

    public static let standard = CalibrationRule(
        measuredS: 10, shortestS: 5, steadyWithinDB: 3, quietestDBFS: -80, loudestPeakDBFS: -1,
        plausibleDB: [Level.plausibleDB.lowerBound, Level.plausibleDB.upperBound])

    enum CodingKeys: String, CodingKey {
        case measuredS = "measured_s"
        case shortestS = "shortest_s"
        case steadyWithinDB = "steady_within_db"
        case quietestDBFS = "quietest_dbfs"
        case loudestPeakDBFS = "loudest_peak_dbfs"
        case plausibleDB = "plausible_db"
    }
}
