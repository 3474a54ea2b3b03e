import HearClearCore

/// "Measure here" (`/venues/{id}/measure`): a phone's browser measures the venue and uploads a
/// check-in (Public/measure.js, docs/public-pages.md). The page itself holds only the venue; the
/// script does the rest after a tap, so the page works as a page without it (it says why not).
struct PublicMeasurePage {
    let id: String
    let name: String
    let title: String
    /// How long a measurement runs unless stopped.
    let seconds = PublicMeasurePage.duration
    let minutes = PublicMeasurePage.duration / 60
    /// How long calibrating against a sound level meter listens, as `hearclear calibrate --reading`.
    let calibrationSeconds = Int(CalibrationRule.standard.measuredS)
    /// The range of a calibration and of a meter's reading (`Level.plausibleDB`): the fields' bounds,
    /// which the page's script reads to check what is typed in them.
    let lowestDB = Int(Level.plausibleDB.lowerBound)
    let highestDB = Int(Level.plausibleDB.upperBound)

    /// Five minutes, as the command-line client's check-in.
    static let duration = 300

    init(venue: VenueSummary) {
        id = venue.id
        name = venue.venue.name
        title = "Measure \(venue.venue.name)"
    }
}
