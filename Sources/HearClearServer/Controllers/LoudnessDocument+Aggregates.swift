import Foundation
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

/// What v2's answers are made from besides the cells: the conversation rules, the evidence of each
/// cell, and today (days since 1970-01-01), against which the evidence ages.
struct AnswerContext {
    let scale: LabelScale
    let rules: ConversationRules
    let evidence: [LocalHour: CellEvidence]
    let today: Int

    init(scale: LabelScale, rules: ConversationRules, evidence: [LocalHour: CellEvidence], today: Int = AnswerContext.day()) {
        self.scale = scale
        self.rules = rules
        self.evidence = evidence
        self.today = today
    }

    /// Days since 1970-01-01, UTC.
    static func day(of now: Date = Date()) -> Int { Int((now.timeIntervalSince1970 / 86_400).rounded(.down)) }

    /// The confidence of a cell with data: from its evidence.
    func confidence(of aggregate: LoudnessAggregate) -> Confidence {
        evidence[aggregate.cell]?.confidence(today: today) ?? .low
    }
}

extension ConversationCell {
    /// A cell of v2's answers: v1's, with what the rules decide about conversation there, and the
    /// evidence it rests on deciding its confidence.
    init(_ aggregate: LoudnessAggregate?, weekday: Weekday?, hour: Int?, context: AnswerContext) {
        var cell = LoudnessCell(aggregate, weekday: weekday, hour: hour, scale: context.scale)
        guard let aggregate, let conversation = context.rules.conversation(in: aggregate) else {
            self.init(cell: cell)
            return
        }
        let evidence = context.evidence[aggregate.cell]
        cell.confidence = context.confidence(of: aggregate)
        self.init(
            cell: cell, sil: Level.rounded(conversation.sil), silEstimated: conversation.silEstimated, effort: conversation.effort,
            effortHearingLoss: conversation.effortHearingLoss, intelligibility: conversation.intelligibility,
            l10: aggregate.spread.l10, l50: aggregate.spread.l50, l90: aggregate.spread.l90, lafmaxP90: aggregate.spread.fastMaxP90,
            cMinusA: aggregate.cMinusA.map(Level.rounded), speechShare: aggregate.sounds.speechShare.map(Self.hundredths),
            musicShare: aggregate.sounds.musicShare.map(Self.hundredths), devices: evidence?.devices, days: evidence?.days, lastMeasured: evidence?.lastMeasured)
    }

    static func hundredths(_ share: Double) -> Double { (share * 100).rounded() / 100 }
}

extension ConversationLoudness {
    /// v2's answer.
    init(venueID: String, aggregates: [LoudnessAggregate], context: AnswerContext) {
        self.init(venueID: venueID, unit: context.scale.unit, aggregates: aggregates) {
            ConversationCell($0, weekday: $1, hour: $2, context: context)
        }
    }
}

extension VenueRanking {
    /// Venues found around a place, by their cell at one weekday and hour: those with data first,
    /// easiest conversation first (the one order of `Conversation.isEasier`), then the nearer; those
    /// without data after them, nearest first. At most `limit`.
    static func ranked(_ summaries: [VenueSummary], hearingLoss: Bool, limit: Int, rules: ConversationRules) -> [VenueSummary] {
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
        return Array(ranked.prefix(limit).map(\.0))
    }

    /// The answer for venues already ranked, with the evidence of each.
    init(_ ranked: [VenueSummary], at: WeekdayHour, hearingLoss: Bool, evidence: [String: VenueEvidence], scale: LabelScale, rules: ConversationRules) {
        self.init(
            weekday: at.weekday, hour: at.hour, hearingLoss: hearingLoss,
            venues: ranked.map { summary in
                let context = AnswerContext(scale: scale, rules: rules, evidence: evidence[summary.id]?.cells ?? [:])
                return Entry(
                    id: summary.id, name: summary.venue.name, latitude: summary.venue.latitude, longitude: summary.venue.longitude,
                    timezone: summary.venue.timezone, distanceM: ((summary.distanceM ?? 0) * 10).rounded() / 10,
                    cell: ConversationCell(summary.aggregate, weekday: at.weekday, hour: at.hour, context: context))
            })
    }
}

extension QuietTimes {
    /// The venue's weekday-hours with data (of one weekday, or all), easiest conversation first.
    init(venueID: String, weekday: Weekday?, aggregates: [LoudnessAggregate], context: AnswerContext) {
        let (scale, rules) = (context.scale, context.rules)
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
                    confidence: context.confidence(of: aggregate))
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
