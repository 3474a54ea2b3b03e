import Foundation
import LevelMeter

extension DetectedSession {
    /// "21:15:04 – 21:17:30 (2 min 26 s)" when the recording's start is known, else offsets into
    /// it: "5 s – 2 min 31 s (2 min 26 s)".
    public func span(startedAt: Date?, timeZone: TimeZone) -> String {
        let duration = " (\(Self.offset(duration)))"
        guard let startedAt else { return "\(Self.offset(start)) – \(Self.offset(end))\(duration)" }
        // A 24-hour clock whatever the locale, as the rest of the client's times.
        let clock = DateFormatter()
        clock.locale = Locale(identifier: "en_US_POSIX")
        clock.timeZone = timeZone
        clock.dateFormat = "HH:mm:ss"
        return "\(clock.string(from: startedAt.addingTimeInterval(start))) – \(clock.string(from: startedAt.addingTimeInterval(end)))\(duration)"
    }

    /// A length or an offset as people say it: "45 s", "2 min 05 s", "1 h 02 min 05 s".
    public static func offset(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let hours = whole / 3600, minutes = whole % 3600 / 60, rest = whole % 60
        if hours > 0 { return String(format: "%d h %02d min %02d s", hours, minutes, rest) }
        if minutes > 0 { return String(format: "%d min %02d s", minutes, rest) }
        return "\(rest) s"
    }
}
