import Foundation
import HearClearAnalysis
import HearClearCore

/// What storing a check-in computes from its seconds alone once its venue's clock and its
/// calibration are known: its analysis and its seconds' blob. A store makes it before its write
/// transaction, so the one writer spends its time writing, and inside checks with `matches` that
/// the clock and calibration it was made for are still the ones that apply.
struct PreparedCheckIn: Sendable {
    let timezone: String
    let calibrationDB: Double
    let analysis: CheckInAnalysis
    let sampleColumns: Data

    /// Nil when the time zone is not one this server knows.
    init?(_ checkIn: CheckIn, calibrationDB: Double, timezone: String) {
        guard let clock = VenueClock(timeZoneIdentifier: timezone) else { return nil }
        self.timezone = timezone
        self.calibrationDB = calibrationDB
        analysis = CheckInAnalysis(checkIn: checkIn, calibrationDB: calibrationDB, clock: clock)
        sampleColumns = SampleColumns(samples: checkIn.samples, dropped: analysis.dropped).encoded(intervalS: checkIn.intervalS)
    }

    func matches(calibrationDB: Double, timezone: String) -> Bool {
        self.calibrationDB == calibrationDB && self.timezone == timezone
    }
}
