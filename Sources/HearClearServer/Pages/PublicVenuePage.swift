import Foundation
import HearClearAnalysis
import HearClearCore

/// The public page of a venue (`/venues/{id}`), for people who do not use a terminal: when it is
/// loud, whether people can talk there and when it is quietest, in plain words. Built from one
/// read of the venue and its cells; rendered by `public_venue.mustache`. Stored properties only:
/// templates see what Mirror shows.
struct PublicVenuePage {
    /// One cell of a grid: what it shows, what a screen reader says, and its colour (a `tone-N`
    /// class of public.css, or `no-data`), marked `estimated` for an hour nobody measured.
    struct Cell {
        let text: String
        let spoken: String
        let tone: String

        init(text: String, spoken: String, tone: Int?, estimated: Bool = false) {
            self.text = estimated ? "~" + text : text
            self.spoken = spoken
            self.tone = Palette.className(ofTone: tone) + (estimated ? " estimated" : "")
        }
    }

    /// Grids are laid out one hour per row and one weekday per column, so that seven columns fit
    /// a phone's width.
    struct HourRow {
        let hour: String
        let cells: [Cell]
    }

    struct Legend {
        let text: String
        let tone: String
        let mark: String
    }

    struct QuietHour {
        let when: String
        let level: String
        /// From L90 to L10: where the level stays eight seconds in ten.
        let range: String
        let effort: String
        let tone: String
        let confidence: String
    }

    let title: String
    let venueID: String
    let timezone: String
    /// The search around this venue's place, where a person who finds it too loud looks next.
    let nearby: String
    /// What sort of place it is, when its owner or an operator said one that reads ("A pub"; not `other`).
    let kind: String?
    let overall: String
    /// "16 check-ins".
    let checkins: String
    let confidence: String
    let hasData: Bool
    let distance: String
    let summary: [String]
    /// How much the level varies over all measured hours, in words; empty without data.
    let spread: [String]
    /// When the sound is mostly music, in words ("Mostly music after 21:00 on Saturdays.").
    let music: [String]
    let levels: [HourRow]
    let levelLegend: [Legend]
    /// That a label is not a conversation, where the scale's quietest label reaches a level that
    /// takes more than a normal voice.
    let labelNote: String?
    /// The hour it is now at the venue, in words.
    let rightNow: String
    let efforts: [HourRow]
    let effortLegend: [Legend]
    let quietHours: [QuietHour]
    let weekdays: [WeekdayName]
    /// Whether the answers are for a listener with hearing loss (`?hearing_loss=true`), and the
    /// margin that listener needs over typical hearing ("7 dB").
    let hearingLoss: Bool
    let hearingLossMargin: String

    struct WeekdayName {
        let short: String
        let full: String
    }

    init(venue: VenueSummary, aggregates: [LoudnessAggregate], context: AnswerContext, hearingLoss: Bool) {
        let scale = context.scale
        self.hearingLoss = hearingLoss
        hearingLossMargin = Self.amount(context.rules.hearingLossSNRDB, unit: "dB")
        let listener = Listener(hearingLoss: hearingLoss, rules: context.rules)
        let loudness = ConversationLoudness(venueID: venue.id, aggregates: aggregates, context: context)
        title = venue.venue.name
        venueID = venue.id
        timezone = venue.venue.timezone
        nearby = "/venues?near=\(venue.venue.latitude),\(venue.venue.longitude)" + (hearingLoss ? "&hearing_loss=true" : "")
        kind = venue.venue.kind.flatMap { $0 == .other ? nil : $0.rawValue }
        weekdays = Weekday.allCases.map { WeekdayName(short: String($0.rawValue.prefix(3)).capitalized, full: $0.rawValue.capitalized) }
        let overallCell = loudness.overall
        hasData = overallCell.cell.levelDB != nil
        overall = overallCell.cell.levelDB.map { "\(Self.level($0)), \(overallCell.cell.label ?? "")" } ?? "no measurements yet"
        checkins = overallCell.cell.checkins.counted("check-in")
        confidence = overallCell.cell.confidence.rawValue
        distance = Self.metres(context.rules.listenerDistanceM)

        levels = (0..<24).map { hour in
            HourRow(
                hour: Self.clock(hour),
                cells: loudness.grid.map { row in
                    let cell = row.hours[hour].cell
                    let place = "\(row.weekday.rawValue.capitalized) \(Self.clock(hour))"
                    guard let level = cell.levelDB, let label = cell.label else { return Cell(text: "·", spoken: "\(place): no data", tone: nil) }
                    let tone = Palette.tone(forLabel: label, scale: scale)
                    if let interval = row.hours[hour].interval80 {
                        return Cell(
                            text: "\(Level.whole(level))",
                            spoken: "\(place): no one has measured yet; similar hours suggest about \(Self.level(level)), \(label) "
                                + "(\(Self.range(interval[0], interval[1]) ?? ""))",
                            tone: tone, estimated: true)
                    }
                    return Cell(text: "\(Level.whole(level))", spoken: "\(place): \(Self.level(level)), \(label), \(cell.confidence.rawValue) confidence", tone: tone)
                })
        }
        labelNote = Self.labelNote(scale: scale, listener: listener, distance: distance)
        levelLegend = scale.bands.map { band in
            Legend(
                text: "\(band.label): \(band.maxDB.map { "up to \(Int($0)) dB(A)" } ?? "louder")", tone: Palette.className(ofTone: Palette.tone(forLabel: band.label, scale: scale)), mark: "")
        }
        efforts = (0..<24).map { hour in
            HourRow(
                hour: Self.clock(hour),
                cells: loudness.grid.map { row in
                    let place = "\(row.weekday.rawValue.capitalized) \(Self.clock(hour))"
                    let cell = row.hours[hour]
                    guard let effort = listener.effort(cell) else { return Cell(text: "·", spoken: "\(place): no data", tone: nil) }
                    if cell.estimated {
                        return Cell(
                            text: effort.mark, spoken: "\(place): no one has measured yet; similar hours suggest \(Self.voice(cell, listener: listener))",
                            tone: Palette.tone(for: effort), estimated: true)
                    }
                    return Cell(text: effort.mark, spoken: "\(place): \(effort.words)", tone: Palette.tone(for: effort))
                })
        }
        effortLegend = VocalEffort.allCases.map { Legend(text: $0.words, tone: Palette.className(ofTone: Palette.tone(for: $0)), mark: $0.mark) }
        summary = Self.summary(loudness.grid, distance: distance, listener: listener)
        rightNow = Self.rightNow(
            loudness.grid, at: WeekdayHour(Date(), in: TimeZone(identifier: venue.venue.timezone) ?? .gmt), distance: distance, listener: listener)
        spread = Self.spread(overallCell)
        music = MusicHours.sayings(aggregates)
        quietHours = Self.quietHours(id: venue.id, aggregates: aggregates, context: context, count: 6, hearingLoss: hearingLoss)
    }

    /// Which effort of a cell the page answers with: typical hearing's, or with hearing loss.
    struct Listener {
        let hearingLoss: Bool
        let rules: ConversationRules

        static let typical = Listener(hearingLoss: false, rules: .standard)

        func effort(_ cell: ConversationCell) -> VocalEffort? { cell.effort(hearingLoss: hearingLoss) }
        func effort(_ conversation: Conversation) -> VocalEffort { conversation.effort(hearingLoss: hearingLoss) }

        /// The effort at the loud end of an estimate's interval (the answers give typical
        /// hearing's as `effort_range`; with hearing loss it follows from the same level).
        func louderEffort(_ cell: ConversationCell) -> VocalEffort? {
            guard hearingLoss else { return cell.effortRange?.last }
            return cell.interval80.map { rules.conversation(estimatedLevel: $0[1]).effortHearingLoss }
        }
    }

    /// A person who reads green "quiet" beside a red "loud voice" for one hour is owed why: the
    /// label names a level on the server's scale; the voice follows ISO 9921 (estimated from the
    /// A-weighted level at the top of the quietest band, as for an unmeasured hour). Nil when that
    /// level takes a normal voice or less, and for a scale whose quietest band has no top.
    static func labelNote(scale: LabelScale, listener: Listener, distance: String) -> String? {
        guard let quietest = scale.bands.first, let top = quietest.maxDB else { return nil }
        let effort = listener.effort(listener.rules.conversation(estimatedLevel: top))
        guard effort > .normal else { return nil }
        return "A label names a level on this server’s scale, not whether you can talk there: the voice grid above says that. "
            + "At \(Int(top)) dB(A), still “\(quietest.label)”, \(listener.hearingLoss ? "a listener with hearing loss" : "a listener") \(distance) away typically "
            + (effort == .notPossible ? "cannot follow even a very loud voice." : "needs a \(effort.words).")
    }

    /// The `count` easiest hours of the week for a conversation, as the pages show them.
    static func quietHours(id: String, aggregates: [LoudnessAggregate], context: AnswerContext, count: Int, hearingLoss: Bool = false) -> [QuietHour] {
        var cells: [LocalHour: LoudnessAggregate] = [:]
        for aggregate in aggregates { cells[aggregate.cell] = aggregate }
        return QuietTimes(venueID: id, weekday: nil, aggregates: aggregates, context: context, hearingLoss: hearingLoss).hours.prefix(count).map { hour in
            let spread = cells[LocalHour(weekday: hour.weekday.index, hour: hour.hour)]?.spread
            let between = hour.interval80.flatMap { range($0[0], $0[1]).map { "about \($0)" } } ?? spread.flatMap { range($0.l90, $0.l10) } ?? "–"
            let effort = hour.effort(hearingLoss: hearingLoss)
            return QuietHour(
                when: "\(hour.weekday.rawValue.capitalized) \(clock(hour.hour))", level: (hour.estimated ? "~" : "") + level(hour.levelDB), range: between,
                effort: effort.words, tone: Palette.className(ofTone: Palette.tone(for: effort)),
                confidence: hour.estimated ? "estimated: nobody measured this hour yet" : "\(hour.confidence.rawValue) confidence")
        }
    }

    /// The week in plain words: a sentence per weekday with data, weekdays that read the same said
    /// together ("On Mondays, Tuesdays and Sundays, …") so a loud bar is not the same line seven times,
    /// then the weekdays nobody measured, so that a person planning one does not take it for forgotten.
    static func summary(_ rows: [ConversationLoudness.WeekdayRow], distance: String, listener: Listener = .typical) -> [String] {
        let sayings = rows.map { (weekday: $0.weekday, saying: saying(for: $0, distance: distance, listener: listener)) }
        var sentences = sameWeekdays(sayings).map { "On \($0.days), \($0.saying)" }
        let unmeasured = zip(rows, sayings).filter { $0.1.saying == nil }.map(\.0)
        if !sentences.isEmpty, !unmeasured.isEmpty {
            // Past three, the days measured are the shorter list, and the sentences above name them.
            let days = unmeasured.count <= 3 ? list(unmeasured.map { $0.weekday.rawValue.capitalized + "s" }) : "the other \(unmeasured.count) weekdays"
            let estimated = unmeasured.map { $0.hours.contains(where: \.estimated) }
            let estimate =
                !estimated.contains(true) ? "" : "; the grids below estimate \(estimated.contains(false) ? "some of " : "")\(unmeasured.count == 1 ? "its" : "their") hours (~)"
            sentences.append("Nobody has measured on \(days) yet\(estimate).")
        }
        return sentences
    }

    /// Weekdays whose sayings read the same, together, in the order of their first weekday:
    /// ("Mondays, Tuesdays and Sundays", saying). Weekdays without a saying are left out.
    static func sameWeekdays(_ sayings: [(weekday: Weekday, saying: String?)]) -> [(days: String, saying: String)] {
        var grouped: [(days: [String], saying: String)] = []
        for (weekday, saying) in sayings {
            guard let saying else { continue }
            let day = weekday.rawValue.capitalized + "s"
            if let index = grouped.firstIndex(where: { $0.saying == saying }) { grouped[index].days.append(day) } else { grouped.append(([day], saying)) }
        }
        return grouped.map { (list($0.days), $0.saying) }
    }

    /// The hour it is now on the venue's clock, in words: the first question of a person at the
    /// door, or deciding whether to go. Its level and confidence when measured; an estimate says so.
    static func rightNow(_ grid: [ConversationLoudness.WeekdayRow], at now: WeekdayHour, distance: String, listener: Listener = .typical) -> String {
        let cell = grid[now.weekday.index].hours[now.hour]
        let when = "Now, \(now.weekday.rawValue.capitalized) \(clock(now.hour)) at the venue"
        guard let effort = listener.effort(cell), let level = cell.cell.levelDB else { return "\(when): nobody has measured this hour, or hours like it, yet." }
        if cell.estimated { return "\(when): nobody has measured this hour yet; similar hours suggest \(voice(cell, listener: listener))." }
        let voice = effort == .notPossible ? "conversation is not possible" : "expect a \(effort.words) to be understood at \(distance)"
        return "\(when): \(voice) (\(Self.level(level)), \(cell.cell.confidence.rawValue) confidence)."
    }

    /// The voice an estimated hour asks for, with the louder one its interval allows: "a raised
    /// voice, possibly a loud voice".
    static func voice(_ cell: ConversationCell, listener: Listener) -> String {
        guard let effort = listener.effort(cell) else { return "nothing" }
        func phrase(_ effort: VocalEffort) -> String { effort == .notPossible ? "that conversation is not possible" : "a \(effort.words)" }
        guard let louder = listener.louderEffort(cell), louder > effort else { return phrase(effort) }
        return "\(phrase(effort)), possibly \(louder == .notPossible ? "not possible at all" : phrase(louder))"
    }

    /// One weekday: until when a normal voice is enough, and what after, over the hours measured
    /// (estimates are shown apart); `nil` without a measured hour.
    static func saying(for row: ConversationLoudness.WeekdayRow, distance: String, listener: Listener) -> String? {
        let measured = row.hours.enumerated().compactMap { hour, cell in cell.estimated ? nil : listener.effort(cell).map { (hour: hour, effort: $0) } }
        guard let first = measured.first, let last = measured.last else { return nil }
        let hardest = measured.max { $0.effort < $1.effort }!
        let easy = measured.filter { $0.effort <= .normal }
        if easy.count == measured.count {
            return "at normal voice you will be understood at \(distance) at every hour measured (\(clock(first.hour))–\(clock(last.hour + 1)))."
        }
        if easy.isEmpty {
            let easiest = measured.min { $0.effort < $1.effort }!
            if easiest.effort == hardest.effort {
                return hardest.effort == .notPossible ? "conversation is not possible at any hour measured." : "expect a \(hardest.effort.words) at every hour measured."
            }
            let loudest = hardest.effort == .notPossible ? "conversation not possible" : "a \(hardest.effort.words)"
            return "expect to raise your voice at every hour measured: a \(easiest.effort.words) at best, \(loudest) at the loudest."
        }
        let firstHard = measured.first { $0.effort > .normal }!
        if measured.allSatisfy({ $0.hour < firstHard.hour || $0.effort > .normal }) {
            return "at normal voice you will be understood at \(distance) before \(clock(firstHard.hour)); after that, expect to raise your voice (\(hardest.effort.words) at \(clock(hardest.hour)))."
        }
        let easyHours = easy.map { clock($0.hour) }
        return "a normal voice is enough at \(list(easyHours)); at the other hours measured, expect to raise your voice (\(hardest.effort.words) at \(clock(hardest.hour)))."
    }

    /// The overall cell's spread in plain words: where the level stays most of the time, and how
    /// loud the bursts get.
    static func spread(_ overall: ConversationCell) -> [String] {
        var sayings: [String] = []
        if let l10 = overall.l10, let l50 = overall.l50, let l90 = overall.l90 {
            sayings.append(
                "Eight seconds in ten it is from \(Level.whole(l90)) to \(Level.whole(l10)) dB(A); half the time it is louder than \(Level.whole(l50)) dB(A).")
        }
        if let bursts = overall.lafmaxP90 {
            sayings.append("Short bursts (a shout, a dropped plate) reach \(Level.whole(bursts)) dB(A) in the loudest tenth of the seconds.")
        }
        return sayings
    }

    /// "64–70 dB(A)", from the quieter level to the louder, as whole decibels.
    static func range(_ low: Double?, _ high: Double?) -> String? {
        guard let low, let high else { return nil }
        return "\(Level.whole(low))–\(Level.whole(high)) dB(A)"
    }

    static func clock(_ hour: Int) -> String { String(format: "%02d:00", hour % 24) }

    static func level(_ level: Double) -> String { String(format: "%.1f dB(A)", Level.rounded(level)) }

    static func metres(_ metres: Double) -> String { amount(metres, unit: "m") }

    /// A setting as an operator wrote it: "7 dB", "1.5 m".
    static func amount(_ value: Double, unit: String) -> String {
        value == value.rounded() ? "\(Int(value)) \(unit)" : String(format: "%.1f \(unit)", value)
    }

    /// "12:00, 13:00 and 17:00".
    static func list(_ items: [String]) -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }
}
