/// Detected moments merged into sessions, as a baby monitor reports a cry: intervals that pass a
/// threshold (a probability of speech or music, or a loud level) belong to one session until 20
/// seconds go by without one; a session says when it began and ended and how sure it was on average.
public struct DetectedSession: Sendable, Equatable {
    /// Seconds from the recording's start: the first detected interval's start, the last one's end.
    public var start: Double
    public var end: Double
    /// The mean of the detected intervals' values (probability, or level for loud sessions).
    public var meanValue: Double
    public var intervals: Int

    public var duration: Double { end - start }

    /// Nothing detected for this long ends a session.
    public static let quietGap = 20.0

    /// `detections` are the intervals that passed, in time order, each `interval` seconds long but
    /// the last of a recording, which ends with it at `recordingEnd`.
    public static func sessions(
        of detections: [(t: Double, value: Double)], interval: Double, recordingEnd: Double = .infinity, quietGap: Double = quietGap
    ) -> [DetectedSession] {
        var sessions: [DetectedSession] = []
        var sum = 0.0
        for detection in detections {
            let end = min(detection.t + interval, recordingEnd)
            if var current = sessions.last, detection.t - current.end < quietGap {
                sum += detection.value
                current.end = end
                current.intervals += 1
                current.meanValue = sum / Double(current.intervals)
                sessions[sessions.count - 1] = current
            } else {
                sum = detection.value
                sessions.append(DetectedSession(start: detection.t, end: end, meanValue: detection.value, intervals: 1))
            }
        }
        return sessions
    }
}
