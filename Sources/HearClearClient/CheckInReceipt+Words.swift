import HearClearCore

extension CheckInReceipt {
    /// What the server decided, in the measuring page's words (Public/measure.js): a check-in of
    /// nothing but silence is too short by the rules, but "too short" is not why; nil when it counts.
    public var meaning: String? {
        if status == .tooShort, samples > 0, droppedSamples == samples {
            return "no second of it held sound: the microphone gave silence (was it muted?), so it does not count"
        }
        return status.meaning
    }
}
