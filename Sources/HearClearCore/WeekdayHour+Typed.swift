import Foundation

extension WeekdayHour {
    /// A weekday and an hour as people type them on the command line: `friday-20` as the API
    /// takes it, and `friday 20`, `Saturday 20:00`, `sat 20h`, `fri 8pm`. The API keeps the one
    /// form its schema names; `nil` for anything else, and for minutes other than :00, which an
    /// answer per hour would otherwise drop without a word.
    public init?(typed text: String) {
        let words = text.lowercased().split { $0 == " " || $0 == "-" || $0 == "@" }
        guard words.count >= 2, words.count <= 3, let weekday = Weekday(named: String(words[0])) else { return nil }
        var clock = words.dropFirst().joined()
        var offset: Int?
        for (suffix, hours) in [("am", 0), ("pm", 12)] where clock.hasSuffix(suffix) {
            clock.removeLast(suffix.count)
            offset = hours
        }
        if clock.hasSuffix("h") { clock.removeLast() }
        if clock.hasSuffix(":00") { clock.removeLast(3) }
        guard !clock.isEmpty, clock.allSatisfy({ $0.isASCII && $0.isNumber }), var hour = Int(clock), (0..<24).contains(hour) else { return nil }
        if let offset {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + offset
        }
        self.init(weekday: weekday, hour: hour)
    }

    /// What a bad value typed on the command line is told.
    public static let typedRule = "a weekday and an hour, like friday-20, \"friday 20:00\" or \"fri 8pm\""

    /// Why `text`, typed for `option`, is no weekday and hour: a time with minutes is told the hour
    /// it lies in, since the answers are kept per hour; anything else, the forms `rule` names.
    public static func typedProblem(_ text: String, option: String, rule: String = typedRule) -> String {
        if let minutes = text.range(of: ":[0-5][0-9]", options: .regularExpression),
            let hour = WeekdayHour(typed: text.replacingCharacters(in: minutes, with: ":00"))
        {
            let clock = { String(format: "%02d:00", $0) }
            return "\(option) takes whole hours, as the answers are kept per hour: “\(text)” lies in \(hour) (\(clock(hour.hour)) to \(clock((hour.hour + 1) % 24)))"
        }
        return "\(option) must be \(rule)"
    }
}
