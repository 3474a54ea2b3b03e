/// A local weekday and hour as people write it in a query or on the command line: `friday-20`.
public struct WeekdayHour: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var weekday: Weekday
    /// 0 … 23.
    public var hour: Int

    public init(weekday: Weekday, hour: Int) {
        precondition((0..<24).contains(hour))
        self.weekday = weekday
        self.hour = hour
    }

    /// `friday-20`, `Friday-8`, `fri-20`; `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let hour = Int(parts[1]), (0..<24).contains(hour), let weekday = Weekday(named: String(parts[0])) else { return nil }
        self.init(weekday: weekday, hour: hour)
    }

    public var description: String { "\(weekday.rawValue)-\(hour)" }

    /// What a bad value is told, wherever one is read.
    public static let rule = "a weekday and an hour from 0 to 23, like friday-20"
}
