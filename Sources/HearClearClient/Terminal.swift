import Foundation
import HearClearCore

/// Drawing for the terminal: colours only when the output is a terminal and `NO_COLOR` is unset.
public struct Terminal: Sendable {
    public let colors: Bool

    public init(colors: Bool) {
        self.colors = colors
    }

    public static var standardOutput: Terminal {
        Terminal(colors: isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
    }

    /// 256-colour backgrounds from green to red, spread over however many labels the scale has.
    static let ramp = [114, 184, 214, 196]

    func color(forBand band: Int, of count: Int) -> Int {
        guard count > 1 else { return Self.ramp[0] }
        return Self.ramp[min(Self.ramp.count - 1, band * (Self.ramp.count - 1) / (count - 1))]
    }

    func painted(_ text: String, background: Int) -> String {
        colors ? "\u{1B}[48;5;\(background)m\u{1B}[30m\(text)\u{1B}[0m" : text
    }

    /// The weekday × hour heatmap of a venue: each cell shows the level (whole dB) coloured by its
    /// label; without colours, the first letter of the label. Empty cells are dots.
    /// `estimates`, API v2's answer when the server has it, fills the hours nobody measured with
    /// their estimates: a tilde and the level (or the label's letter), never painted, so that they
    /// do not read as measurements.
    public func heatmap(_ loudness: Loudness, scale: LabelScale, venueName: String? = nil, estimates: ConversationLoudness? = nil) -> String {
        let labels = scale.bands.map(\.label)
        var lines: [String] = []
        let overall = loudness.overall.levelDB.map { String(format: "%.1f %@", $0, loudness.unit) } ?? "no data"
        lines.append("\(venueName ?? loudness.venueID): \(overall)\(loudness.overall.label.map { " (\($0))" } ?? ""), \(loudness.overall.checkins.counted("check-in"))")
        lines.append("      " + (0..<24).map { String(format: "%3d", $0) }.joined())
        for (day, row) in loudness.grid.enumerated() {
            var line = String(row.weekday.rawValue.prefix(3)).capitalized.padding(toLength: 6, withPad: " ", startingAt: 0)
            for (hour, cell) in row.hours.enumerated() {
                guard let level = cell.levelDB, let label = cell.label else {
                    if let estimate = estimates?.grid[day].hours[hour], estimate.estimated, let level = estimate.cell.levelDB, let label = estimate.cell.label {
                        line += colors ? String(format: "~%2d", min(99, Level.whole(level))) : " ~" + String(label.prefix(1)).uppercased()
                    } else {
                        line += "  ·"
                    }
                    continue
                }
                let band = labels.firstIndex(of: label) ?? 0
                let text = colors ? String(format: "%3d", Level.whole(level)) : "  " + String(label.prefix(1)).uppercased()
                line += painted(text, background: color(forBand: band, of: labels.count))
            }
            lines.append(line)
        }
        let legend = scale.bands.enumerated().map { index, band in
            let range = band.maxDB.map { "≤\(Int($0))" } ?? "above"
            let key = colors ? painted("   ", background: color(forBand: index, of: labels.count)) : String(band.label.prefix(1)).uppercased()
            return "\(key) \(band.label) \(range)"
        }
        let estimated = estimates.map { _ in "  ~ estimated (nobody measured that hour)" } ?? ""
        lines.append("Legend: " + legend.joined(separator: "  ") + estimated + "  · no data   (\(scale.unit), venue's local time)")
        return lines.joined(separator: "\n")
    }

    /// The one-line live meter: elapsed / total, a bar for the average level, peak, events so far.
    /// Calibrated levels are dB (the bar spans 30–120 dB); without a calibration they are dBFS,
    /// said so, and the bar spans −90–0 dBFS.
    public func meterLine(
        elapsed: Double, total: Double?, average: Double, peak: Double, calibrationDB: Double?, events: Int, classes: SoundClasses? = nil
    ) -> String {
        let offset = calibrationDB ?? 0
        let unit = calibrationDB == nil ? "dBFS" : "dB"
        let level = average + offset
        let floor = calibrationDB == nil ? -90.0 : 30
        let filled = max(0, min(30, Int(((level - floor) / 90 * 30).rounded())))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: 30 - filled)
        let time = total.map { "\(Self.clock(elapsed)) / \(Self.clock($0))" } ?? Self.clock(elapsed)
        return "\(time)  [\(bar)]  avg \(String(format: "%5.1f", level)) \(unit)  peak \(String(format: "%5.1f", peak + offset)) \(unit)  events \(events)"
            + (Level.isSilence(average) ? "  no sound: is the microphone muted?" : classes.map { "  \($0.words)" } ?? "")
    }

    /// After measuring intervals that held silence (`Level.isSilence`), that the server leaves
    /// them out and why; nil when none did. Said before the upload, whose receipt would otherwise
    /// call a muted check-in only "too short".
    public static func silenceNote(_ samples: [Sample]) -> String? {
        let silent = samples.count { Level.isSilence($0.avg) }
        guard silent > 0 else { return nil }
        return "\(silent) of \(samples.count.counted("interval")) held no sound at all (below \(Int(Level.silenceDBFS)) dBFS): the microphone was muted or gave zeros, "
            + (silent == samples.count ? "so the check-in cannot count. Unmute it and check in again." : "and the server leaves \(silent == 1 ? "that one" : "those") out.")
    }

    /// A search near a place that found nothing, or nothing but the venue it was asked near, and
    /// what to try; nil when it found another venue. Most places are more than the default
    /// kilometre from a venue someone has added, and a person asking near the venue they are in
    /// wants somewhere else.
    public static func nothingNear(_ found: [String], around venueID: String?, within radius: Double) -> String? {
        if found.isEmpty { return "No venues within \(Int(radius)) m: a larger --radius looks further." }
        guard let venueID, found.allSatisfy({ $0 == venueID }) else { return nil }
        return "No other venue within \(Int(radius)) m of \(venueID): a larger --radius looks further."
    }

    /// After a list as long as its `--limit`: the server may hold more than it sent.
    public static func listedAtMost(_ limit: Int) -> String {
        "At most \(limit) \(limit == 1 ? "is" : "are") listed: --limit lists more"
    }

    public static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.down))
        return whole >= 3600
            ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%02d:%02d", whole / 60, whole % 60)
    }
}

/// Durations written like `90s`, `5m`, `2h`, `1h30m`, or plain seconds.
public enum DurationText {
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public static func seconds(_ text: String) throws -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let plain = Double(trimmed), plain.isFinite, plain > 0 { return plain }
        var total = 0.0
        var number = ""
        for character in trimmed {
            if character.isNumber || character == "." {
                number.append(character)
                continue
            }
            let unit: Double
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            default: throw Invalid(description: "\"\(text)\" is not a duration like 90s, 5m or 2h")
            }
            guard let value = Double(number) else { throw Invalid(description: "\"\(text)\" is not a duration like 90s, 5m or 2h") }
            total += value * unit
            number = ""
        }
        guard number.isEmpty, total > 0 else { throw Invalid(description: "\"\(text)\" is not a duration like 90s, 5m or 2h") }
        return total
    }

    /// `seconds` as `seconds(_:)` reads it: "5m", "1h30m", "90s" (under two minutes in seconds).
    public static func text(_ seconds: Double) -> String {
        guard seconds >= 120, seconds == seconds.rounded() else { return String(format: "%gs", seconds) }
        let whole = Int(seconds)
        let parts = [(whole / 3600, "h"), (whole % 3600 / 60, "m"), (whole % 60, "s")].filter { $0.0 > 0 }
        return parts.map { "\($0.0)\($0.1)" }.joined()
    }
}
