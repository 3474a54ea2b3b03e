import ArgumentParser
import Foundation
import HearClearCore

/// The hour `loudness --at` and `quiet --at` ask about: a weekday and an hour as people type them,
/// or `now` — the question a person deciding whether to go out asks first.
enum AskedHour {
    case now
    case weekdayHour(WeekdayHour)

    /// The option's transform: a value neither `now` nor a weekday and hour is told what to type.
    static func typed(_ text: String) throws -> AskedHour {
        if text.trimmingCharacters(in: .whitespaces).lowercased() == "now" { return .now }
        guard let value = WeekdayHour(typed: text) else {
            throw ValidationError(WeekdayHour.typedProblem(text, option: "--at", rule: WeekdayHour.typedRule + ", or now"))
        }
        return .weekdayHour(value)
    }

    /// The weekday and hour on clocks in `timeZone`: now is the hour it is there.
    func weekdayHour(in timeZone: TimeZone) -> WeekdayHour {
        switch self {
        case .now: WeekdayHour(Date(), in: timeZone)
        case .weekdayHour(let value): value
        }
    }
}
