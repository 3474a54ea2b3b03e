import Foundation
import HearClearAnalysis
import HearClearCore

enum VenuePage {
    struct Model {
        let chrome: PageChrome
        let id: String
        let name: String
        let latitude: String
        let longitude: String
        let timezone: String
        /// What sort of place it is, in words, and the form's choices.
        let kind: String
        let kinds: [KindChoice]
        let heatmap: String
        let checkins: Count
        let usable: String
        let outliers: Count
        let tooShort: String
        let overall: String
        let overallLabel: String
        let spread: String
        /// Whether people can talk there overall (docs/analysis.md), in one line.
        let conversation: String
        /// When the sound is mostly music, in words.
        let music: [String]
        /// The easiest hours for a conversation, best first.
        let quietHours: [PublicVenuePage.QuietHour]
        let checkInRows: [CheckInRow]
        /// Who may change it through the API.
        let owner: String
        let history: [HistoryRow]
        /// The form's values: as stored, unformatted.
        let latitudeValue: String
        let longitudeValue: String
    }

    struct KindChoice {
        let value: String
        let selected: Bool
    }

    struct HistoryRow {
        let when: String
        let who: String
        let what: String
    }

    static func model(store: any AdminStore, id: String, scale: LabelScale, rules: ConversationRules, session: AdminSession) async throws -> Model? {
        guard let detail = try await store.venueDetail(id: id) else { return nil }
        let loudness = Loudness(venueID: id, aggregates: detail.aggregates, scale: scale)
        let overall = detail.aggregates.first { $0.weekday == LoudnessAggregate.everyWeekday && $0.hour == LoudnessAggregate.everyHour }
        let usableLevels = detail.checkIns.filter(\.counts).compactMap(\.levelDB).sorted()
        return Model(
            chrome: PageChrome(title: detail.venue.name, csrf: session.csrfToken, section: "venues"),
            id: id, name: detail.venue.name, latitude: String(format: "%.5f", detail.venue.latitude),
            longitude: String(format: "%.5f", detail.venue.longitude), timezone: detail.venue.timezone,
            kind: detail.venue.kind?.rawValue ?? "kind not said",
            kinds: VenueKind.allCases.map { KindChoice(value: $0.rawValue, selected: $0 == detail.venue.kind) },
            heatmap: Charts.heatmap(loudness, scale: scale),
            checkins: Count(detail.checkIns.count, "check-in"), usable: usableLevels.count.grouped,
            outliers: Count(detail.checkIns.filter { $0.status == .outlier }.count, "outlier"),
            tooShort: detail.checkIns.filter { $0.status == .tooShort }.count.grouped,
            overall: Formatting.level(loudness.overall.levelDB), overallLabel: loudness.overall.label ?? "",
            spread: spread(usableLevels), conversation: conversation(overall, rules: rules), music: MusicHours.sayings(detail.aggregates),
            // The check-ins are listed below: the hours go without the public pages' confidence.
            quietHours: PublicVenuePage.quietHours(
                id: id, aggregates: detail.aggregates, context: AnswerContext(scale: scale, rules: rules, evidence: [:]), count: 5),
            checkInRows: detail.checkIns.map { CheckInRow($0, scale: scale) },
            owner: detail.owner.map { "device \($0.wireString)" } ?? "no device (only operators may change it)",
            history: detail.history.map { HistoryRow(when: Formatting.utc($0.changedAt), who: $0.actor, what: describe($0)) },
            latitudeValue: "\(detail.venue.latitude)", longitudeValue: "\(detail.venue.longitude)")
    }

    /// The overall cell's conversation answer in one line: SIL (measured or estimated), the effort
    /// with and without hearing loss, the spread and bursts, and C − A when known.
    static func conversation(_ overall: LoudnessAggregate?, rules: ConversationRules) -> String {
        guard let overall, let answer = rules.conversation(in: overall) else { return "–" }
        var parts = [
            String(format: "SIL %.1f dB", Level.rounded(answer.sil)) + (answer.silEstimated ? " (estimated from the A level: no octave bands)" : ""),
            "\(answer.effort.words) at \(PublicVenuePage.metres(rules.listenerDistanceM))", "with hearing loss: \(answer.effortHearingLoss.words)",
        ]
        if let l10 = overall.spread.l10, let l50 = overall.spread.l50, let l90 = overall.spread.l90 {
            parts.append(String(format: "L10 %.1f, L50 %.1f, L90 %.1f dB", l10, l50, l90))
        }
        if let bursts = overall.spread.fastMaxP90 { parts.append(String(format: "LAFmax p90 %.1f dB", bursts)) }
        if let gap = overall.cMinusA { parts.append(String(format: "C − A %.1f dB", Level.rounded(gap))) }
        if let speech = overall.sounds.speechShare, let music = overall.sounds.musicShare {
            parts.append(String(format: "music in %.0f %%, speech in %.0f %% of the classified seconds", music * 100, speech * 100))
        }
        return parts.joined(separator: " · ")
    }

    /// A change in words: what was created, which fields went from what to what, what was merged.
    static func describe(_ change: VenueChange) -> String {
        switch change.action {
        case .create:
            guard let after = change.after else { return "created" }
            return "created “\(after.name)” at \(after.latitude), \(after.longitude) in \(after.timezone)"
        case .merge:
            return "merged venue \(change.before?.id ?? "?") (“\(change.before?.name ?? "")”) into this one"
        case .mergedInto:
            return "merged into another venue"
        case .update, .transfer:
            guard let before = change.before, let after = change.after else { return change.action.rawValue }
            var parts: [String] = []
            if before.name != after.name { parts.append("name “\(before.name)” → “\(after.name)”") }
            if before.latitude != after.latitude || before.longitude != after.longitude {
                parts.append("place \(before.latitude), \(before.longitude) → \(after.latitude), \(after.longitude)")
            }
            if before.timezone != after.timezone { parts.append("time zone \(before.timezone) → \(after.timezone)") }
            if before.kind != after.kind { parts.append("kind \(before.kind?.rawValue ?? "none") → \(after.kind?.rawValue ?? "none")") }
            if before.owner != after.owner { parts.append("owner \(before.owner ?? "none") → \(after.owner ?? "none")") }
            return parts.isEmpty ? "no change" : parts.joined(separator: "; ")
        }
    }

    /// The middle half of the usable check-ins' levels (25th to 75th percentile).
    static func spread(_ sorted: [Double]) -> String {
        guard sorted.count >= 2 else { return "–" }
        func percentile(_ p: Double) -> Double {
            let position = p * Double(sorted.count - 1)
            let lower = Int(position.rounded(.down)), upper = Int(position.rounded(.up))
            return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
        }
        return String(format: "%.1f – %.1f dB(A) (middle half of usable check-ins)", percentile(0.25), percentile(0.75))
    }
}
