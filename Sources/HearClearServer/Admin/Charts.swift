import Foundation
import HearClearCore

/// Inline SVG drawn on the server, so the pages need no script and no network. Every text that
/// goes into the markup passes through `escape`.
enum Charts {
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func format(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    /// The weekday × hour grid: cells coloured by label with the level in them, empty cells
    /// hatched and marked "–", and a legend of the scale.
    static func heatmap(_ loudness: Loudness, scale: LabelScale) -> String {
        let cell = 34.0, height = 26.0, left = 44.0, top = 20.0
        let width = left + 24 * cell + 2, gridBottom = top + 7 * height
        var svg = """
            <svg class="heatmap" role="img" aria-label="Loudness by weekday and hour, venue's local time" viewBox="0 0 \(width) \(gridBottom + 46)" xmlns="http://www.w3.org/2000/svg">
            <defs><pattern id="nodata" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#d6d6d6" stroke-width="2"/></pattern></defs>
            """
        for hour in 0..<24 where hour % 3 == 0 {
            svg += "<text class=\"axis\" x=\(attribute(left + Double(hour) * cell + cell / 2)) y=\"14\" text-anchor=\"middle\">\(hour)h</text>"
        }
        for row in loudness.grid {
            let y = top + Double(row.weekday.index) * height
            svg += "<text class=\"axis\" x=\"2\" y=\(attribute(y + height * 0.65))>\(row.weekday.rawValue.prefix(3).capitalized)</text>"
            for (hour, value) in row.hours.enumerated() {
                let x = left + Double(hour) * cell
                let place = "\(row.weekday.rawValue.capitalized) \(String(format: "%02d", hour)):00"
                if let level = value.levelDB, let label = value.label {
                    let title = "\(place): \(format(level)) dB(A), \(label), \(value.checkins.counted("check-in"))"
                    let swatch = Palette.swatch(forLabel: label, scale: scale)
                    svg += "<g><rect class=\"cell\" x=\(attribute(x)) y=\(attribute(y)) width=\(attribute(cell - 2)) height=\(attribute(height - 2)) rx=\"3\" fill=\"\(swatch.background)\"><title>\(escape(title))</title></rect>"
                    svg += "<text class=\"level\" x=\(attribute(x + cell / 2 - 1)) y=\(attribute(y + height * 0.62)) text-anchor=\"middle\" fill=\"\(swatch.text)\">\(Level.whole(level))</text></g>"
                } else {
                    svg += "<rect class=\"cell empty\" x=\(attribute(x)) y=\(attribute(y)) width=\(attribute(cell - 2)) height=\(attribute(height - 2)) rx=\"3\" fill=\"url(#nodata)\"><title>\(escape(place)): no data</title></rect>"
                }
            }
        }
        var x = left
        for band in scale.bands {
            let range = band.maxDB.map { "≤ \(Int($0))" } ?? "above"
            let text = "\(band.label) \(range)"
            svg += "<rect class=\"swatch\" x=\(attribute(x)) y=\(attribute(gridBottom + 14)) width=\"14\" height=\"14\" rx=\"2\" fill=\"\(Palette.swatch(forLabel: band.label, scale: scale).background)\"/>"
            svg += "<text class=\"axis\" x=\(attribute(x + 18)) y=\(attribute(gridBottom + 25))>\(escape(text))</text>"
            x += 26 + Double(text.count) * 7
        }
        svg += "<rect class=\"swatch\" x=\(attribute(x)) y=\(attribute(gridBottom + 14)) width=\"14\" height=\"14\" rx=\"2\" fill=\"url(#nodata)\" stroke=\"#bbb\"/>"
        svg += "<text class=\"axis\" x=\(attribute(x + 18)) y=\(attribute(gridBottom + 25))>no data</text>"
        return svg + "</svg>"
    }

    /// Bars of counts per day, the last one today.
    static func dailyBars(_ days: [(day: Date, count: Int)]) -> String {
        let width = 600.0, height = 120.0, bottom = 100.0
        let most = max(1, days.map(\.count).max() ?? 1)
        let step = width / Double(max(1, days.count))
        var svg = "<svg class=\"chart daily\" role=\"img\" aria-label=\"Check-ins per day\" viewBox=\"0 0 \(width) \(height)\" xmlns=\"http://www.w3.org/2000/svg\">"
        svg += "<line class=\"axis-line\" x1=\"0\" y1=\"\(bottom)\" x2=\"\(width)\" y2=\"\(bottom)\"/>"
        svg += "<text class=\"axis\" x=\"2\" y=\"10\">\(most)</text>"
        for (index, day) in days.enumerated() {
            let barHeight = Double(day.count) / Double(most) * (bottom - 14)
            let date = day.day.formatted(Date.ISO8601FormatStyle().year().month().day())
            svg += "<rect class=\"bar\" x=\(attribute(Double(index) * step + 1)) y=\(attribute(bottom - barHeight)) width=\(attribute(step - 2)) height=\(attribute(barHeight))><title>\(date): \(day.count)</title></rect>"
            if index % 7 == days.count % 7 {
                svg += "<text class=\"axis\" x=\(attribute(Double(index) * step)) y=\"114\">\(date.suffix(5))</text>"
            }
        }
        return svg + "</svg>"
    }

    /// Average and peak level per interval over a check-in, with dropped samples and loud events marked.
    static func session(_ detail: CheckInDetail) -> String {
        let width = 720.0, height = 260.0, left = 40.0, right = 8.0, top = 10.0, bottom = 226.0
        let calibration = detail.calibrationDB
        let levels = detail.samples.flatMap { [$0.sample.avg + calibration, $0.sample.peak + calibration] }
        let low = ((levels.min() ?? 0) / 10).rounded(.down) * 10, high = max(low + 10, ((levels.max() ?? 0) / 10).rounded(.up) * 10)
        let duration = max(detail.intervalS, (detail.samples.last?.sample.t ?? 0) + detail.intervalS)
        func x(_ t: Double) -> Double { left + t / duration * (width - left - right) }
        func y(_ level: Double) -> Double { bottom - (level - low) / (high - low) * (bottom - top) }
        var svg = "<svg class=\"chart session\" role=\"img\" aria-label=\"Average and peak level per interval\" viewBox=\"0 0 \(width) \(height)\" xmlns=\"http://www.w3.org/2000/svg\">"
        for event in detail.events {
            svg += "<rect class=\"event\" x=\(attribute(x(event.t))) y=\(attribute(top)) width=\(attribute(max(2, x(event.t + event.durationS) - x(event.t)))) height=\(attribute(bottom - top))><title>loud event at \(format(event.t)) s: peak \(format(event.peak + calibration)) dB, \(format(event.durationS)) s</title></rect>"
        }
        var tick = low
        while tick <= high {
            svg += "<line class=\"grid\" x1=\(attribute(left)) y1=\(attribute(y(tick))) x2=\(attribute(width - right)) y2=\(attribute(y(tick)))/>"
            svg += "<text class=\"axis\" x=\"2\" y=\(attribute(y(tick) + 4))>\(Int(tick))</text>"
            tick += 10
        }
        let minutes = max(1, Int((duration / 60 / 6).rounded(.up)))
        var minute = 0
        while Double(minute * 60) <= duration {
            svg += "<text class=\"axis\" x=\(attribute(x(Double(minute * 60)))) y=\"244\" text-anchor=\"middle\">\(minute)m</text>"
            minute += minutes
        }
        func line(_ level: (Sample) -> Double) -> String {
            detail.samples.map { "\(format(x($0.sample.t))),\(format(y(level($0.sample) + calibration)))" }.joined(separator: " ")
        }
        svg += "<polyline class=\"peak\" fill=\"none\" points=\"\(line(\.peak))\"/>"
        svg += "<polyline class=\"avg\" fill=\"none\" points=\"\(line(\.avg))\"/>"
        for entry in detail.samples where entry.dropped {
            svg += "<circle class=\"dropped\" cx=\(attribute(x(entry.sample.t))) cy=\(attribute(y(entry.sample.avg + calibration))) r=\"4\"><title>dropped at \(format(entry.sample.t)) s: \(format(entry.sample.avg + calibration)) dB</title></circle>"
        }
        svg += "<text class=\"axis legend-avg\" x=\"\(left + 4)\" y=\"258\">— average</text><text class=\"axis legend-peak\" x=\"\(left + 90)\" y=\"258\">— peak</text>"
        svg += "<text class=\"axis legend-dropped\" x=\"\(left + 160)\" y=\"258\">● dropped</text><text class=\"axis legend-event\" x=\"\(left + 240)\" y=\"258\">▮ loud event</text>"
        return svg + "</svg>"
    }

    private static func attribute(_ value: Double) -> String {
        "\"\(format(value))\""
    }
}
