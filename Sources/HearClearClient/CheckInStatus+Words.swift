import HearClearCore

extension CheckInStatus {
    /// What the status means for the venue's levels, in the measuring page's words (Public/measure.js,
    /// `verdicts`); nil when the check-in counts.
    public var meaning: String? {
        switch self {
        case .accepted: nil
        case .tooShort: "too short to count towards the venue's levels"
        case .outlier: "far from what others measured here at this hour, so kept but not counted unless more measurements agree"
        }
    }
}
