import ArgumentParser
import Foundation
import HearClearCore
import LevelMeter

/// What `analyze --detect` looks for.
enum Detection: String, ExpressibleByArgument, CaseIterable, Encodable {
    case speech, music, loud

    var defaultThreshold: Double { kind == nil ? LoudEventDetector.defaultThresholdDB : SoundClasses.detected }

    /// The class looked for; `nil` for loud moments, which are found by level.
    var kind: SoundClasses.Kind? { SoundClasses.Kind(rawValue: rawValue) }
}

/// `analyze --detect --json`.
struct DetectionReport: Encodable {
    let detect: Detection
    let threshold: Double
    let startedAt: Date?
    let sessions: [DetectedSession]

    struct Session: Encodable {
        let start: Double
        let end: Double
        let durationS: Double
        let mean: Double
        let startedAt: String?
        let endedAt: String?

        enum CodingKeys: String, CodingKey {
            case start, end, mean
            case durationS = "duration_s", startedAt = "started_at", endedAt = "ended_at"
        }
    }

    enum CodingKeys: String, CodingKey {
        case detect, threshold, sessions
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(detect, forKey: .detect)
        try container.encode(threshold, forKey: .threshold)
        try container.encode(
            sessions.map { session in
                Session(
                    start: session.start, end: session.end, durationS: session.duration, mean: (session.meanValue * 100).rounded() / 100,
                    startedAt: startedAt.map { Timestamp.format($0.addingTimeInterval(session.start)) },
                    endedAt: startedAt.map { Timestamp.format($0.addingTimeInterval(session.end)) })
            }, forKey: .sessions)
    }
}

extension Analysis {
    /// The share of the classified intervals where `kind` is detected; `nil` when none was classified.
    func share(of kind: SoundClasses.Kind) -> Double? {
        let classified = samples.compactMap(\.classes)
        guard !classified.isEmpty else { return nil }
        return Double(classified.count { $0.holds(kind) }) / Double(classified.count)
    }

    /// The intervals that pass `threshold`, merged into sessions (`DetectedSession`).
    func sessions(of detection: Detection, threshold: Double?) -> [DetectedSession] {
        let threshold = threshold ?? detection.defaultThreshold
        let detections: [(t: Double, value: Double)] = samples.compactMap { sample in
            let value = detection.kind.map { sample.classes?.probability(of: $0) } ?? sample.peak + (calibrationDB ?? Level.defaultCalibrationDB)
            guard let value, value >= threshold else { return nil }
            return (sample.t, value)
        }
        return DetectedSession.sessions(of: detections, interval: interval, recordingEnd: duration)
    }
}
