import Foundation

extension WeekdayHour {
    /// The weekday and hour `date` falls in on clocks in `timeZone`.
    public init(_ date: Date, in timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.weekday, .hour], from: date)
        // Calendar counts from Sunday (1); Weekday from Monday (0).
        self.init(weekday: Weekday(index: (parts.weekday! + 5) % 7), hour: parts.hour!)
    }
}
