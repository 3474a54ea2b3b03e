import HearClearAnalysis
import HearClearCore

/// When a venue's sound is mostly music, in words for the venue pages: "Mostly music after 21:00
/// on Saturdays." An hour is music-led when music was detected in at least half of its classified
/// seconds (docs/sound-classes.md). Only hours whose seconds were classified are judged, so "after
/// 21:00" means from 21:00 to the last such hour of the day; weekdays that read the same are said
/// together, all seven as "every day".
enum MusicHours {
    static func sayings(_ aggregates: [LoudnessAggregate]) -> [String] {
        var shares: [LocalHour: Double] = [:]
        for aggregate in aggregates { shares[aggregate.cell] = aggregate.sounds.musicShare }
        let days = Weekday.allCases.map { weekday -> (weekday: Weekday, saying: String?) in
            let judged = (0..<24).compactMap { hour in shares[LocalHour(weekday: weekday.index, hour: hour)].map { (hour: hour, led: $0 >= 0.5) } }
            return (weekday, saying(judged))
        }
        if let first = days.first?.saying, days.allSatisfy({ $0.saying == first }) { return ["Mostly music \(first) every day."] }
        return PublicVenuePage.sameWeekdays(days).map { "Mostly music \($0.saying) on \($0.days)." }
    }

    /// One weekday's judged hours, in order, as "after 21:00", "until 19:00", "from 19:00 to
    /// 22:00" (several joined) or "at every hour measured"; `nil` when none is music-led.
    static func saying(_ judged: [(hour: Int, led: Bool)]) -> String? {
        var runs: [(first: Int, last: Int)] = []
        for (index, hour) in judged.enumerated() where hour.led {
            if let last = runs.last, last.last == index - 1 { runs[runs.count - 1].last = index } else { runs.append((index, index)) }
        }
        guard !runs.isEmpty else { return nil }
        if runs.count == 1, runs[0] == (0, judged.count - 1) { return "at every hour measured" }
        let clock = PublicVenuePage.clock
        return PublicVenuePage.list(
            runs.map { run in
                let start = clock(judged[run.first].hour), end = clock(judged[run.last].hour + 1)
                if run.last == judged.count - 1 { return "after \(start)" }
                if run.first == 0 { return "until \(end)" }
                return "from \(start) to \(end)"
            })
    }
}
