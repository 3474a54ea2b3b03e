import Foundation
import HearClearCore

/// The conversation answers of API v2 in the terminal: the effort grid, one cell in words, and the
/// ranking of venues nearby.
extension Terminal {
    /// Each effort's colour, green to red (its mark, `VocalEffort.mark`, reads without colours).
    static func color(for effort: VocalEffort) -> Int {
        switch effort {
        case .relaxed, .normal: 114
        case .raised: 184
        case .loud: 214
        case .veryLoud, .notPossible: 196
        }
    }

    /// The weekday × hour grid of the vocal effort a conversation needs (for a listener with hearing
    /// loss, or not), in the heatmap's layout.
    public func effortGrid(_ loudness: ConversationLoudness, hearingLoss: Bool, venueName: String? = nil) -> String {
        var lines: [String] = []
        let overall = loudness.overall.effort(hearingLoss: hearingLoss).map { "overall \($0.words)" } ?? "no data"
        let listener = hearingLoss ? "a listener with hearing loss" : "a listener"
        lines.append("\(venueName ?? loudness.venueID): the voice \(listener) understands across a table; \(overall), \(loudness.overall.cell.checkins.counted("check-in"))")
        // An estimated hour (nobody measured it) is its mark after a tilde, unpainted: it must not
        // read as a measurement at a glance.
        lines += rows(of: loudness) { cell in cell.effort(hearingLoss: hearingLoss).map { cell.estimated ? " ~" + $0.mark : painted("  " + $0.mark, background: Self.color(for: $0)) } }
        let legend = VocalEffort.allCases.map { "\(painted($0.mark, background: Self.color(for: $0))) \($0.words)" }
        lines.append("Legend: " + legend.joined(separator: "  ") + "  ~ estimated (nobody measured that hour)  · no data   (venue's local time)")
        return lines.joined(separator: "\n")
    }

    /// The hours' header and a line per weekday, each cell three characters wide as `draw` makes it,
    /// or a dot where it gives nothing.
    func rows(of loudness: ConversationLoudness, draw: (ConversationCell) -> String?) -> [String] {
        ["      " + (0..<24).map { String(format: "%3d", $0) }.joined()]
            + loudness.grid.map { row in
                String(row.weekday.rawValue.prefix(3)).capitalized.padding(toLength: 6, withPad: " ", startingAt: 0)
                    + row.hours.map { draw($0) ?? "  ·" }.joined()
            }
    }

    /// Light to dark blue for a share from 0 to 1 in quarters: neither good nor bad, so not the
    /// levels' green to red.
    static let shareColors = [153, 117, 75, 33]

    /// The weekday × hour grid of the share of seconds holding speech (or music), in whole percent,
    /// in the heatmap's layout; cells where nothing was classified are dots.
    public func shareGrid(_ loudness: ConversationLoudness, of kind: SoundClasses.Kind, venueName: String? = nil) -> String {
        func share(_ cell: ConversationCell) -> Double? { kind == .speech ? cell.speechShare : cell.musicShare }
        func color(_ share: Double) -> Int { Self.shareColors[min(Self.shareColors.count - 1, Int(share * Double(Self.shareColors.count)))] }
        var lines: [String] = []
        let overall = share(loudness.overall).map { "\(kind.rawValue) in \(Int(($0 * 100).rounded())) % of the classified seconds" } ?? "nothing classified"
        lines.append("\(venueName ?? loudness.venueID): how often \(kind.rawValue) is heard; \(overall), \(loudness.overall.cell.checkins.counted("check-in"))")
        lines += rows(of: loudness) { cell in share(cell).map { painted(String(format: "%3d", Int(($0 * 100).rounded())), background: color($0)) } }
        let legend = Self.shareColors.indices.map { index in
            let quarter = 100 / Self.shareColors.count
            return "\(painted("   ", background: Self.shareColors[index])) \(index * quarter)–\(index == Self.shareColors.count - 1 ? 100 : (index + 1) * quarter - 1)"
        }
        lines.append(
            (colors ? "Legend: " + legend.joined(separator: "  ") + " %  " : "Legend: % of the classified seconds  ")
                + "· nothing classified   (venue's local time)")
        return lines.joined(separator: "\n")
    }

    /// One cell in words: its level, how hard it is to talk, and how sure that is.
    public func cellSummary(_ cell: ConversationCell, at: WeekdayHour, unit: String, venueName: String) -> String {
        let when = "\(at.weekday.rawValue.capitalized) \(String(format: "%02d:00", at.hour))"
        guard let level = cell.cell.levelDB, let effort = cell.effort, let sil = cell.sil else {
            return "\(venueName), \(when): no data yet."
        }
        if cell.estimated {
            var lines = ["\(venueName), \(when): no one has measured this hour yet; similar hours suggest about \(String(format: "%.1f", level)) \(unit)"
                + "\(cell.cell.label.map { " (\($0))" } ?? "")"]
            if let interval = cell.interval80 {
                lines.append("  Eight visits in ten would read between \(String(format: "%.1f", interval[0])) and \(String(format: "%.1f", interval[1])) \(unit)")
            }
            let louder = cell.effortRange?.last.flatMap { $0 > effort ? ", possibly \($0.words)" : nil } ?? ""
            lines.append("  Conversation across a table: probably \(effort.words)\(louder); with hearing loss: \((cell.effortHearingLoss ?? effort).words)")
            lines.append("  Estimated from this venue's other hours and venues like it: measure here to know (hearclear checkin)")
            return lines.joined(separator: "\n")
        }
        var lines = ["\(venueName), \(when): \(String(format: "%.1f", level)) \(unit)\(cell.cell.label.map { " (\($0))" } ?? "")"]
        lines.append("  Conversation across a table: \(effort.words); with hearing loss: \((cell.effortHearingLoss ?? effort).words)")
        if let intelligibility = cell.intelligibility { lines.append("  A normal voice is understood: \(intelligibility.rawValue)") }
        lines.append("  Speech interference level: \(String(format: "%.1f", sil)) dB\(cell.silEstimated == true ? " (estimated from the A level: no octave bands measured here yet)" : "")")
        if let l10 = cell.l10, let l50 = cell.l50, let l90 = cell.l90 {
            lines.append("  Spread: L10 \(String(format: "%.1f", l10)), L50 \(String(format: "%.1f", l50)), L90 \(String(format: "%.1f", l90)) \(unit) (exceeded 10, 50 and 90 % of the time)")
        }
        if let bursts = cell.lafmaxP90 { lines.append("  Bursts: LAFmax reaches \(String(format: "%.1f", bursts)) \(unit) in the loudest tenth of the seconds") }
        if let gap = cell.cMinusA { lines.append("  C − A: \(String(format: "%.1f", gap)) dB\(gap >= 10 ? " (bass-heavy)" : "")") }
        if let speech = cell.speechShare, let music = cell.musicShare {
            lines.append("  Heard: music in \(Int((music * 100).rounded())) % of the seconds, speech in \(Int((speech * 100).rounded())) %")
        }
        var evidence = cell.cell.checkins.counted("check-in")
        if let devices = cell.devices, let days = cell.days {
            evidence += " from \(devices.counted("device")) on \(days.counted("day"))"
        }
        if let last = cell.lastMeasured { evidence += ", last on \(last)" }
        lines.append("  Confidence: \(cell.cell.confidence.rawValue), \(evidence)")
        return lines.joined(separator: "\n")
    }

    /// Where no venue of a ranking allows a conversation at its hour, what the listener may ask
    /// instead; nil where one does (or there are no venues, which says so itself).
    static func whatToAskNext(_ ranking: VenueRanking) -> String? {
        let efforts = ranking.venues.compactMap { $0.cell.effort(hearingLoss: ranking.hearingLoss) }
        if ranking.venues.isEmpty || efforts.contains(where: { $0 != .notPossible }) { return nil }
        return efforts.isEmpty
            ? "No venue here has been measured at that hour: --at asks another hour, and `hearclear checkin ID` measures one."
            : "At that hour no venue here allows a conversation: --at asks another hour, a larger --radius more venues, and `hearclear loudness ID --effort` a venue's hours."
    }

    /// Venues within `radius` metres (of the venue `around`, when asked near one), easiest
    /// conversation first.
    public func ranking(_ ranking: VenueRanking, unit: String, radius: Double, around venueID: String? = nil) -> String {
        let listener = ranking.hearingLoss ? " (for a listener with hearing loss)" : ""
        var lines = ["Easiest conversation on \(ranking.weekday.rawValue.capitalized) at \(String(format: "%02d:00", ranking.hour)), each venue's local time\(listener):"]
        for (index, venue) in ranking.venues.enumerated() {
            let effort = venue.cell.effort(hearingLoss: ranking.hearingLoss)
            let distance = venue.distanceM >= 1000 ? String(format: "%.1f km", venue.distanceM / 1000) : String(format: "%.0f m", venue.distanceM)
            let answer = effort.map { effort in
                venue.cell.estimated
                    ? "~\(effort.mark)  \(effort.words), about \(String(format: "%.1f", venue.cell.cell.levelDB ?? 0)) \(unit) (estimated: nobody measured that hour)"
                    : "\(painted(" \(effort.mark) ", background: Self.color(for: effort))) \(effort.words), \(String(format: "%.1f", venue.cell.cell.levelDB ?? 0)) \(unit)"
            } ?? "    no data for that hour"
            lines.append(String(format: "%3d. ", index + 1) + "\(venue.name) (\(venue.id)), \(distance): \(answer)")
        }
        if let nothing = Self.nothingNear(ranking.venues.map(\.id), around: venueID, within: radius) {
            lines.append("  " + nothing)
        } else if let next = Self.whatToAskNext(ranking) {
            lines.append("  " + next)
        }
        return lines.joined(separator: "\n")
    }
}
