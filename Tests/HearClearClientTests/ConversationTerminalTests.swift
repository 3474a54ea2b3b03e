import Foundation
import HearClearClient
import HearClearCore
import Testing

/// What the terminal shows of API v2's conversation answers, and the one rounding rule.
@Suite struct ConversationTerminalTests {
    static func grid(_ cell: (Weekday, Int) -> ConversationCell) -> ConversationLoudness {
        let empty = ConversationCell(cell: LoudnessCell(levelDB: nil, label: nil, checkins: 0, samples: 0))
        return ConversationLoudness(
            venueID: "bar", unit: "dBA", overall: empty, byWeekday: [], byHour: [],
            grid: Weekday.allCases.map { day in .init(weekday: day, hours: (0..<24).map { cell(day, $0) }) })
    }

    static func cell(_ day: Weekday, _ hour: Int, level: Double, effort: VocalEffort, hearingLoss: VocalEffort, sil: Double = 50) -> ConversationCell {
        ConversationCell(
            cell: LoudnessCell(weekday: day, hour: hour, levelDB: level, label: "moderate", checkins: 3, samples: 900), sil: sil, silEstimated: false,
            effort: effort, effortHearingLoss: hearingLoss, intelligibility: .fair, l10: level + 3, l50: level, l90: level - 4.5, lafmaxP90: level + 8,
            cMinusA: 11.2, speechShare: 0.35, musicShare: 0.8, devices: 2, days: 3, lastMeasured: "2026-11-20")
    }

    @Test func theEffortGridMarksEachCellAndSaysWhatTheMarksMean() {
        let loudness = Self.grid { day, hour in
            if day == .friday && hour == 20 { return Self.cell(day, hour, level: 72, effort: .loud, hearingLoss: .notPossible) }
            if day == .friday && hour == 17 { return Self.cell(day, hour, level: 58, effort: .normal, hearingLoss: .raised) }
            return ConversationCell(cell: LoudnessCell(weekday: day, hour: hour, levelDB: nil, label: nil, checkins: 0, samples: 0))
        }
        let plain = Terminal(colors: false).effortGrid(loudness, hearingLoss: false, venueName: "The Bar").split(separator: "\n")
        #expect(plain.count == 1 + 1 + 7 + 1)
        let friday = plain[6]
        #expect(friday.hasPrefix("Fri"))
        // Six characters of weekday, then three per hour.
        #expect(Array(friday)[6 + 3 * 20 + 2] == "4" && Array(friday)[6 + 3 * 17 + 2] == "2" && Array(friday)[6 + 3 * 18 + 2] == "·")
        #expect(plain[9].contains("1 relaxed voice") && plain[9].contains("X not possible"))
        let forHearingLoss = Terminal(colors: false).effortGrid(loudness, hearingLoss: true).split(separator: "\n")
        #expect(Array(forHearingLoss[6])[6 + 3 * 20 + 2] == "X" && forHearingLoss[0].contains("hearing loss"))
        let colored = Terminal(colors: true).effortGrid(loudness, hearingLoss: false)
        #expect(colored.contains("\u{1B}[48;5;214m\u{1B}[30m  4"))
    }

    /// An hour nobody measured, estimated: a tilde before its mark, unpainted, in the grid; in words,
    /// "no one has measured", its interval, and the louder voice it may ask for; in a ranking, marked.
    @Test func anEstimatedHourIsMarkedAsNobodyMeasuredIt() throws {
        let estimated = ConversationCell(
            cell: LoudnessCell(weekday: .friday, hour: 19, levelDB: 66.2, label: "moderate", checkins: 0, samples: 0), sil: 58.2, silEstimated: true,
            effort: .raised, effortHearingLoss: .loud, intelligibility: .poor, estimated: true, interval80: [62.1, 70.3], effortRange: [.normal, .loud])
        let loudness = Self.grid { day, hour in
            if day == .friday && hour == 19 { return estimated }
            if day == .friday && hour == 20 { return Self.cell(day, hour, level: 72, effort: .loud, hearingLoss: .notPossible) }
            return ConversationCell(cell: LoudnessCell(weekday: day, hour: hour, levelDB: nil, label: nil, checkins: 0, samples: 0))
        }
        let colored = Terminal(colors: true).effortGrid(loudness, hearingLoss: false).split(separator: "\n")
        #expect(colored[6].contains(" ~3\u{1B}[48;5;214m"), "\(colored[6])")
        #expect(colored[9].contains("~ estimated (nobody measured that hour)"))
        let words = Terminal(colors: false).cellSummary(estimated, at: try #require(WeekdayHour("friday-19")), unit: "dB(A)", venueName: "The Bar")
        #expect(words.hasPrefix("The Bar, Friday 19:00: no one has measured this hour yet; similar hours suggest about 66.2 dB(A) (moderate)"), "\(words)")
        #expect(words.contains("between 62.1 and 70.3 dB(A)") && words.contains("probably raised voice, possibly loud voice") && !words.contains("Confidence"))
        let ranking = VenueRanking(
            weekday: .friday, hour: 19, hearingLoss: false,
            venues: [.init(id: "bar", name: "The Bar", latitude: 0, longitude: 0, timezone: "UTC", distanceM: 120, cell: estimated)])
        #expect(Terminal(colors: false).ranking(ranking, unit: "dB(A)", radius: 1000).contains("The Bar (bar), 120 m: ~3  raised voice, about 66.2 dB(A) (estimated: nobody measured that hour)"))
    }

    @Test func theMusicGridShowsEachHoursShareInPercent() {
        let loudness = Self.grid { day, hour in
            var cell = ConversationCell(cell: LoudnessCell(weekday: day, hour: hour, levelDB: nil, label: nil, checkins: 0, samples: 0))
            if day == .saturday && hour >= 21 { cell = Self.cell(day, hour, level: 75, effort: .loud, hearingLoss: .notPossible) }
            if day == .saturday && hour == 20 { cell.musicShare = 0.04 }
            return cell
        }
        let plain = Terminal(colors: false).shareGrid(loudness, of: .music, venueName: "The Bar").split(separator: "\n")
        #expect(plain.count == 1 + 1 + 7 + 1)
        #expect(plain[0].hasPrefix("The Bar: how often music is heard; nothing classified"))
        let saturday = plain[7]
        #expect(saturday.hasPrefix("Sat") && saturday.hasSuffix("  ·  4 80 80 80"), "\(saturday)")
        #expect(plain[9].contains("% of the classified seconds"))
        let speech = Terminal(colors: false).shareGrid(loudness, of: .speech).split(separator: "\n")
        #expect(speech[7].hasSuffix("  ·  · 35 35 35"), "\(speech[7])")
        // Light to dark blue by quarters: 80 % is the darkest.
        #expect(Terminal(colors: true).shareGrid(loudness, of: .music).contains("\u{1B}[48;5;33m\u{1B}[30m 80"))
    }

    @Test func oneCellInWords() {
        let at = WeekdayHour(weekday: .friday, hour: 20)
        let text = Terminal(colors: false).cellSummary(
            Self.cell(.friday, 20, level: 72.4, effort: .loud, hearingLoss: .notPossible, sil: 61.3), at: at, unit: "dBA", venueName: "The Bar")
        #expect(text.hasPrefix("The Bar, Friday 20:00: 72.4 dBA (moderate)"))
        #expect(text.contains("loud voice; with hearing loss: not possible") && text.contains("61.3 dB") && text.contains("C − A: 11.2 dB (bass-heavy)"))
        #expect(text.contains("  Spread: L10 75.4, L50 72.4, L90 67.9 dBA (exceeded 10, 50 and 90 % of the time)\n  Bursts: LAFmax reaches 80.4 dBA in the loudest tenth of the seconds"))
        #expect(text.contains("(bass-heavy)\n  Heard: music in 80 % of the seconds, speech in 35 %\n"))
        #expect(text.hasSuffix("Confidence: medium, 3 check-ins from 2 devices on 3 days, last on 2026-11-20"))
        let empty = ConversationCell(cell: LoudnessCell(weekday: .friday, hour: 20, levelDB: nil, label: nil, checkins: 0, samples: 0))
        #expect(Terminal(colors: false).cellSummary(empty, at: at, unit: "dBA", venueName: "The Bar") == "The Bar, Friday 20:00: no data yet.")
    }

    @Test func venuesNearbyAreListedInTheServersOrder() {
        let ranking = VenueRanking(
            weekday: .friday, hour: 20, hearingLoss: false,
            venues: [
                .init(id: "cafe", name: "Café", latitude: 0, longitude: 0, timezone: "UTC", distanceM: 412.5, cell: Self.cell(.friday, 20, level: 55, effort: .normal, hearingLoss: .raised)),
                .init(
                    id: "empty", name: "Empty", latitude: 0, longitude: 0, timezone: "UTC", distanceM: 1250,
                    cell: ConversationCell(cell: LoudnessCell(weekday: .friday, hour: 20, levelDB: nil, label: nil, checkins: 0, samples: 0))),
            ])
        let lines = Terminal(colors: false).ranking(ranking, unit: "dB(A)", radius: 1000).split(separator: "\n")
        #expect(lines[1] == "  1. Café (cafe), 412 m:  2  normal voice, 55.0 dB(A)")
        #expect(lines[2] == "  2. Empty (empty), 1.2 km:     no data for that hour")
    }

    /// Was: a list of "not possible" and "no data" and nothing after it, leaving a listener who
    /// cannot talk anywhere nearby at that hour to guess what to ask next.
    @Test func whenNoVenueNearbyAllowsConversationThenItSaysWhatToAskNext() {
        let empty = ConversationCell(cell: LoudnessCell(weekday: .friday, hour: 20, levelDB: nil, label: nil, checkins: 0, samples: 0))
        func ranking(_ cells: [ConversationCell], hearingLoss: Bool = false) -> String {
            let venues = cells.enumerated().map { index, cell in
                VenueRanking.Entry(id: "v\(index)", name: "V\(index)", latitude: 0, longitude: 0, timezone: "UTC", distanceM: 100, cell: cell)
            }
            return Terminal(colors: false).ranking(VenueRanking(weekday: .friday, hour: 20, hearingLoss: hearingLoss, venues: venues), unit: "dB(A)", radius: 1000)
        }
        let disco = Self.cell(.friday, 20, level: 92, effort: .notPossible, hearingLoss: .notPossible)
        let pub = Self.cell(.friday, 20, level: 74, effort: .veryLoud, hearingLoss: .notPossible)
        let nowhere = "\n  At that hour no venue here allows a conversation: --at asks another hour, a larger --radius more venues, and `hearclear loudness ID --effort` a venue's hours."
        #expect(ranking([disco, empty]).hasSuffix(nowhere))
        #expect(ranking([pub, disco], hearingLoss: true).hasSuffix(nowhere))
        #expect(!ranking([pub, disco]).contains("no venue here allows"))
        #expect(ranking([empty, empty]).hasSuffix("\n  No venue here has been measured at that hour: --at asks another hour, and `hearclear checkin ID` measures one."))
    }

    /// Was: "No venues there.", when the nearest venue was 1.1 km off and the default radius 1 km.
    @Test func noVenuesNearbySaysHowFarItLookedAndHowToLookFurther() {
        let ranking = VenueRanking(weekday: .friday, hour: 20, hearingLoss: false, venues: [])
        let text = Terminal(colors: false).ranking(ranking, unit: "dB(A)", radius: 1000)
        #expect(text.hasSuffix("\n  No venues within 1000 m: a larger --radius looks further."), "\(text)")
    }

    /// Was: asked near the venue one is in, a list of that venue alone, and nothing after it.
    @Test func aVenueAskedNearAloneSaysNoOtherVenueIsThere() {
        let hall = VenueRanking.Entry(
            id: "hall", name: "Hall", latitude: 0, longitude: 0, timezone: "UTC", distanceM: 0,
            cell: Self.cell(.friday, 20, level: 55, effort: .normal, hearingLoss: .raised))
        let alone = Terminal(colors: false).ranking(
            VenueRanking(weekday: .friday, hour: 20, hearingLoss: false, venues: [hall]), unit: "dB(A)", radius: 500, around: "hall")
        #expect(alone.hasSuffix("\n  No other venue within 500 m of hall: a larger --radius looks further."), "\(alone)")
        #expect(Terminal.nothingNear(["hall", "cafe"], around: "hall", within: 500) == nil)
        #expect(Terminal.nothingNear(["hall"], around: nil, within: 500) == nil)
        #expect(Terminal.nothingNear([], around: "hall", within: 500) == "No venues within 500 m: a larger --radius looks further.")
    }

    /// Was: a 64.5 dB cell read 64 in the terminal (printf rounds halves to even) and 65 on the
    /// admin pages (Swift rounds them away from zero).
    @Test func aHalfDecibelRoundsUpInTheTerminalAsOnThePages() {
        var loudness = Loudness(
            venueID: "v1", unit: "dBA", overall: LoudnessCell(levelDB: 64.5, label: "quiet", checkins: 3, samples: 900), byWeekday: [], byHour: [],
            grid: Weekday.allCases.map { day in
                Loudness.WeekdayRow(weekday: day, hours: (0..<24).map { LoudnessCell(weekday: day, hour: $0, levelDB: nil, label: nil, checkins: 0, samples: 0) })
            })
        loudness.grid[0].hours[8] = LoudnessCell(weekday: .monday, hour: 8, levelDB: 64.5, label: "quiet", checkins: 1, samples: 300)
        #expect(Terminal(colors: true).heatmap(loudness, scale: .standard).contains("[30m 65"))
        #expect(Level.whole(64.5) == 65 && Level.whole(-0.5) == -1 && Level.whole(64.49) == 64)
    }
}
