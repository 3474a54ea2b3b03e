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
/// cell, today (days since 1970-01-01), against which the evidence ages, and the estimates for the
/// venue's weekday-hours nobody measured.
struct AnswerContext {
    let scale: LabelScale
    let rules: ConversationRules
    let evidence: [LocalHour: CellEvidence]
    let today: Int
    let estimate: (LocalHour) -> HourEstimates.Estimate?

    init(
        scale: LabelScale, rules: ConversationRules, evidence: [LocalHour: CellEvidence], today: Int = AnswerContext.day(),
        estimate: @escaping (LocalHour) -> HourEstimates.Estimate? = { _ in nil }
    ) {
        self.scale = scale
        self.rules = rules
        self.evidence = evidence
        self.today = today
        self.estimate = estimate
    }

    /// The context of one venue's answers, with its estimates from `estimates`.
    init(scale: LabelScale, rules: ConversationRules, evidence: [LocalHour: CellEvidence], today: Int = AnswerContext.day(), venueID: String, estimates: HourEstimates) {
        self.init(scale: scale, rules: rules, evidence: evidence, today: today) { estimates.estimate(venue: venueID, at: $0) }
    }

    /// An estimate's interval as answers carry it, to the tenth of a dB.
    static func interval(_ estimate: HourEstimates.Estimate) -> [Double] {
        [Level.rounded(estimate.low), Level.rounded(estimate.high)]
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
            if aggregate == nil, let weekday, let hour, let estimate = context.estimate(LocalHour(weekday: weekday.index, hour: hour)) {
                self.init(estimate, weekday: weekday, hour: hour, context: context)
            } else {
                self.init(cell: cell)
            }
            return
        }
        let evidence = context.evidence[aggregate.cell]
        cell.confidence = context.confidence(of: aggregate)
        self.init(
            cell: cell, sil: Level.rounded(conversation.sil), silEstimated: conversation.silEstimated, effort: conversation.effort,
            effortHearingLoss: conversation.effortHearingLoss, intelligibility: conversation.intelligibility,
            l10: aggregate.spread.l10, l50: aggregate.spread.l50, l90: aggregate.spread.l90, lafmaxP90: aggregate.spread.fastMaxP90,
            cMinusA: aggregate.cMinusA.map(Level.rounded), speechShare: aggregate.sounds.speechShare.map(Self.hundredths),
            musicShare: aggregate.sounds.musicShare.map(Self.hundredths),
            classesModels: aggregate.sounds.speechShare == nil ? nil : evidence?.classesModels ?? [], devices: evidence?.devices, days: evidence?.days,
            lastMeasured: evidence?.lastMeasured)
    }

    /// The cell of a weekday-hour nobody measured, from its estimate: the level, label and
    /// conversation measures of the central level, its interval and the efforts at its ends; no
    /// check-in, sample, spread or evidence (an estimate never counts as a measurement).
    init(_ estimate: HourEstimates.Estimate, weekday: Weekday, hour: Int, context: AnswerContext) {
        let conversation = context.rules.conversation(estimatedLevel: estimate.level)
        let ends = [estimate.low, estimate.high].map { context.rules.conversation(estimatedLevel: $0).effort }
        self.init(
            cell: LoudnessCell(
                weekday: weekday, hour: hour, levelDB: Level.rounded(estimate.level), label: context.scale.label(for: estimate.level), checkins: 0,
                samples: 0),
            sil: Level.rounded(conversation.sil), silEstimated: true, effort: conversation.effort, effortHearingLoss: conversation.effortHearingLoss,
            intelligibility: conversation.intelligibility, estimated: true, interval80: AnswerContext.interval(estimate), effortRange: ends)
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
    /// How many venues around a place are ranked at most, nearest first, before the best are kept.
    static let candidates = 1000

    /// The venues of `query` (around its place) ranked at `at`, at most `query.limit`: API v2's
    /// `GET /venues?near&at`, and the public search given a weekday and an hour.
    init(_ query: VenueQuery, at: WeekdayHour, hearingLoss: Bool, repository: any Repository, settings: ServerSettings, estimates: HourEstimates) async throws {
        var candidates = query
        candidates.limit = Self.candidates
        candidates.cell = LocalHour(weekday: at.weekday.index, hour: at.hour)
        let ranked = Self.ranked(
            try await repository.venues(matching: candidates), at: candidates.cell, hearingLoss: hearingLoss, limit: query.limit,
            rules: settings.conversation, estimates: estimates)
        self.init(
            ranked, at: at, hearingLoss: hearingLoss, evidence: try await repository.evidence(venueIDs: ranked.map(\.id)), scale: settings.scale,
            rules: settings.conversation, estimates: estimates)
    }

    /// Venues found around a place, by their cell at one weekday and hour, measured or else
    /// estimated: those with either first, easiest conversation first (the one order of
    /// `Conversation.isEasier`, an estimate after a measured cell of equal effort), then the nearer;
    /// those with neither after them, nearest first. At most `limit`.
    static func ranked(
        _ summaries: [VenueSummary], at cell: LocalHour, hearingLoss: Bool, limit: Int, rules: ConversationRules, estimates: HourEstimates
    ) -> [VenueSummary] {
        let ranked = summaries.map { summary in
            (
                summary,
                summary.aggregate.flatMap(rules.conversation(in:))
                    ?? estimates.estimate(venue: summary.id, at: cell).map { rules.conversation(estimatedLevel: $0.level) }
            )
        }
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
    init(
        _ ranked: [VenueSummary], at: WeekdayHour, hearingLoss: Bool, evidence: [String: VenueEvidence], scale: LabelScale, rules: ConversationRules,
        estimates: HourEstimates
    ) {
        self.init(
            weekday: at.weekday, hour: at.hour, hearingLoss: hearingLoss,
            venues: ranked.map { summary in
                let context = AnswerContext(
                    scale: scale, rules: rules, evidence: evidence[summary.id]?.cells ?? [:], venueID: summary.id, estimates: estimates)
                return Entry(
                    id: summary.id, name: summary.venue.name, latitude: summary.venue.latitude, longitude: summary.venue.longitude,
                    timezone: summary.venue.timezone, distanceM: ((summary.distanceM ?? 0) * 10).rounded() / 10,
                    cell: ConversationCell(summary.aggregate, weekday: at.weekday, hour: at.hour, context: context))
            })
    }
}

extension QuietTimes {
    /// The venue's weekday-hours with data (of one weekday, or all), measured or estimated, easiest
    /// conversation first (an estimate after a measured hour of equal effort), for a listener with
    /// hearing loss when asked.
    init(venueID: String, weekday: Weekday?, aggregates: [LoudnessAggregate], context: AnswerContext, hearingLoss: Bool = false) {
        let (scale, rules) = (context.scale, context.rules)
        var measured: [LocalHour: LoudnessAggregate] = [:]
        for aggregate in aggregates where aggregate.weekday < LoudnessAggregate.everyWeekday && aggregate.hour < LoudnessAggregate.everyHour {
            measured[aggregate.cell] = aggregate
        }
        let days = weekday.map { [$0.index] } ?? Array(0..<7)
        let hours = days.flatMap { day in (0..<24).map { LocalHour(weekday: day, hour: $0) } }.compactMap { cell -> (Conversation, Hour)? in
            let weekday = Weekday(index: cell.weekday)
            if let aggregate = measured[cell] {
                guard let level = aggregate.levelDB, let conversation = rules.conversation(in: aggregate) else { return nil }
                return (
                    conversation,
                    Hour(
                        weekday: weekday, hour: cell.hour, levelDB: Level.rounded(level), label: scale.label(for: level),
                        sil: Level.rounded(conversation.sil), silEstimated: conversation.silEstimated, effort: conversation.effort,
                        effortHearingLoss: conversation.effortHearingLoss, intelligibility: conversation.intelligibility,
                        confidence: context.confidence(of: aggregate))
                )
            }
            guard let estimate = context.estimate(cell) else { return nil }
            let conversation = rules.conversation(estimatedLevel: estimate.level)
            return (
                conversation,
                Hour(
                    weekday: weekday, hour: cell.hour, levelDB: Level.rounded(estimate.level), label: scale.label(for: estimate.level),
                    sil: Level.rounded(conversation.sil), silEstimated: true, effort: conversation.effort,
                    effortHearingLoss: conversation.effortHearingLoss, intelligibility: conversation.intelligibility, confidence: .none,
                    estimated: true, interval80: AnswerContext.interval(estimate))
            )
        }
        self.init(
            venueID: venueID, unit: scale.unit, weekday: weekday,
            hours: hours.sorted { a, b in
                if a.0.isEasier(than: b.0, hearingLoss: hearingLoss) { return true }
                if b.0.isEasier(than: a.0, hearingLoss: hearingLoss) { return false }
                return (a.1.weekday.index, a.1.hour) < (b.1.weekday.index, b.1.hour)
            }.map(\.1))
    }
}
