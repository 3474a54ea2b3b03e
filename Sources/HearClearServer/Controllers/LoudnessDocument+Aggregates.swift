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

extension ConversationCell {
    /// A cell of v2's answers: v1's, with what `rules` decide about conversation there.
    init(_ aggregate: LoudnessAggregate?, weekday: Weekday?, hour: Int?, scale: LabelScale, rules: ConversationRules) {
        let cell = LoudnessCell(aggregate, weekday: weekday, hour: hour, scale: scale)
        guard let aggregate, let conversation = rules.conversation(in: aggregate) else {
            self.init(cell: cell)
            return
        }
        self.init(
            cell: cell, sil: Level.rounded(conversation.sil), silEstimated: conversation.silEstimated, effort: conversation.effort,
            effortHearingLoss: conversation.effortHearingLoss, intelligibility: conversation.intelligibility,
            cMinusA: aggregate.cMinusA.map(Level.rounded))
    }
}

extension ConversationLoudness {
    /// v2's answer.
    init(venueID: String, aggregates: [LoudnessAggregate], scale: LabelScale, rules: ConversationRules) {
        self.init(venueID: venueID, unit: scale.unit, aggregates: aggregates) {
            ConversationCell($0, weekday: $1, hour: $2, scale: scale, rules: rules)
        }
    }
}

extension VenueRanking {
    /// Venues found around a place, each with its cell at `at`: those with data first, easiest
    /// conversation first (the one order of `Conversation.isEasier`), then the nearer; those without
    /// data after them, nearest first. At most `limit`.
    init(_ summaries: [VenueSummary], at: WeekdayHour, hearingLoss: Bool, limit: Int, scale: LabelScale, rules: ConversationRules) {
        let ranked = summaries.map { summary in (summary, summary.aggregate.flatMap(rules.conversation(in:))) }
            .sorted { a, b in
                switch (a.1, b.1) {
                case (let x?, let y?):
                    if x.isEasier(than: y, hearingLoss: hearingLoss) { return true }
                    if y.isEasier(than: x, hearingLoss: hearingLoss) { return false }
                case (.some, nil): return true
                case (nil, .some): return false
                case (nil, nil): break
                }
                return (a.0.distanceM ?? 0, a.0.id) < (b.0.distanceM ?? 0, b.0.id)
            }
        self.init(
            weekday: at.weekday, hour: at.hour, hearingLoss: hearingLoss,
            venues: ranked.prefix(limit).map { summary, _ in
                Entry(
                    id: summary.id, name: summary.venue.name, latitude: summary.venue.latitude, longitude: summary.venue.longitude,
                    timezone: summary.venue.timezone, distanceM: ((summary.distanceM ?? 0) * 10).rounded() / 10,
                    cell: ConversationCell(summary.aggregate, weekday: at.weekday, hour: at.hour, scale: scale, rules: rules))
            })
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
