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
        self.init(samples: checkIn.samples, startedAt: checkIn.startedAt, intervalS: checkIn.intervalS, calibrationDB: calibrationDB, timezone: timezone)
    }

    /// The same for a stored check-in's samples: what `rebuild` stores again.
    init?(samples: [Sample], startedAt: Date, intervalS: Double, calibrationDB: Double, timezone: String) {
        guard let clock = VenueClock(timeZoneIdentifier: timezone) else { return nil }
        self.timezone = timezone
        self.calibrationDB = calibrationDB
        analysis = CheckInAnalysis(samples: samples, startedAt: startedAt, intervalS: intervalS, calibrationDB: calibrationDB, clock: clock)
        sampleColumns = SampleColumns(samples: samples, dropped: analysis.dropped).encoded(intervalS: intervalS)
    }

    func matches(calibrationDB: Double, timezone: String) -> Bool {
        self.calibrationDB == calibrationDB && self.timezone == timezone
    }

    /// The status it is stored with, before the outlier rule compares it with its venue's others
    /// (a new check-in is never marked).
    func storedStatus(markedOutlier: Bool = false) -> CheckInStatus {
        Analysis.status(keptSamples: analysis.keptSamples, markedOutlier: markedOutlier, verdict: nil)
    }

    /// What the rules are given once it is stored under `key`, in the same transaction; nil when
    /// it is too short to count, which leaves the outlier rule and every cell as they were.
    func joined<Key>(as key: Key) -> JoinedCheckIn<Key>? {
        analysis.isTooShort ? nil : JoinedCheckIn(key: key, status: storedStatus(), hours: analysis.hours)
    }
}
