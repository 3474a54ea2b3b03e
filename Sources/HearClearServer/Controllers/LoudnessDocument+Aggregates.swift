import HearClearAnalysis
import HearClearCore

extension LoudnessDocument {
    /// The document from a venue's cached aggregates: each cell made by `cell` from its aggregate
    /// (`nil` where there is no data), its weekday and its hour (`nil` for the marginals).
    init(venueID: String, unit: String, aggregates: [LoudnessAggregate], cell: (LoudnessAggregate?, Weekday?, Int?) -> Cell) {
        var bySpan: [LocalHour: LoudnessAggregate] = [:]
        for aggregate in aggregates { bySpan[aggregate.cell] = aggregate }
        func made(weekday: Int, hour: Int) -> Cell {
            cell(
                bySpan[LocalHour(weekday: weekday, hour: hour)], weekday < LoudnessAggregate.everyWeekday ? Weekday(index: weekday) : nil,
                hour < LoudnessAggregate.everyHour ? hour : nil)
        }
        let everyWeekday = LoudnessAggregate.everyWeekday, everyHour = LoudnessAggregate.everyHour
        self.init(
            venueID: venueID, unit: unit,
            overall: made(weekday: everyWeekday, hour: everyHour),
            byWeekday: (0..<7).map { made(weekday: $0, hour: everyHour) },
            byHour: (0..<24).map { made(weekday: everyWeekday, hour: $0) },
            grid: (0..<7).map { weekday in WeekdayRow(weekday: Weekday(index: weekday), hours: (0..<24).map { made(weekday: weekday, hour: $0) }) })
    }
}

extension LoudnessCell {
    /// A cell of v1's answer; labels come from the scale in force.
    init(_ aggregate: LoudnessAggregate?, weekday: Weekday?, hour: Int?, scale: LabelScale) {
        let level = aggregate?.levelDB
        self.init(
            weekday: weekday, hour: hour, levelDB: level.map(Level.rounded), label: level.map(scale.label(for:)),
            checkins: aggregate?.checkins ?? 0, samples: aggregate?.samples ?? 0)
    }
}

extension Loudness {
    /// v1's answer.
    init(venueID: String, aggregates: [LoudnessAggregate], scale: LabelScale) {
        self.init(venueID: venueID, unit: scale.unit, aggregates: aggregates) { LoudnessCell($0, weekday: $1, hour: $2, scale: scale) }
    }
}

extension ConversationLoudness {
    /// v2's answer: v1's cells with what `rules` decide about conversation in each.
    init(venueID: String, aggregates: [LoudnessAggregate], scale: LabelScale, rules: ConversationRules) {
        self.init(venueID: venueID, unit: scale.unit, aggregates: aggregates) { aggregate, weekday, hour in
            let cell = LoudnessCell(aggregate, weekday: weekday, hour: hour, scale: scale)
            guard let aggregate, let conversation = rules.conversation(in: aggregate) else { return ConversationCell(cell: cell) }
            return ConversationCell(
                cell: cell, sil: Level.rounded(conversation.sil), silEstimated: conversation.silEstimated, effort: conversation.effort,
                effortHearingLoss: conversation.effortHearingLoss, intelligibility: conversation.intelligibility,
                cMinusA: aggregate.cMinusA.map(Level.rounded))
        }
    }
}

extension QuietTimes {
    /// The venue's weekday-hours with data (of one weekday, or all), easiest conversation first.
    init(venueID: String, weekday: Weekday?, aggregates: [LoudnessAggregate], scale: LabelScale, rules: ConversationRules) {
        let hours = aggregates.compactMap { aggregate -> (Conversation, Hour)? in
            guard aggregate.weekday < LoudnessAggregate.everyWeekday, aggregate.hour < LoudnessAggregate.everyHour,
                weekday.map({ $0.index == aggregate.weekday }) ?? true,
                let level = aggregate.levelDB, let conversation = rules.conversation(in: aggregate)
            else { return nil }
            return (
                conversation,
                Hour(
                    weekday: Weekday(index: aggregate.weekday), hour: aggregate.hour, levelDB: Level.rounded(level), label: scale.label(for: level),
                    sil: Level.rounded(conversation.sil), silEstimated: conversation.silEstimated, effort: conversation.effort,
                    effortHearingLoss: conversation.effortHearingLoss, intelligibility: conversation.intelligibility,
                    confidence: Confidence(checkins: aggregate.checkins))
            )
        }
        self.init(
            venueID: venueID, unit: scale.unit, weekday: weekday,
            hours: hours.sorted { a, b in
                if a.0.isEasier(than: b.0) { return true }
                if b.0.isEasier(than: a.0) { return false }
                return (a.1.weekday.index, a.1.hour) < (b.1.weekday.index, b.1.hour)
            }.map(\.1))
    }
}
