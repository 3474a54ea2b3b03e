/// Some of a venue's stored cells, as a store selects them: by weekdays and hours, a cell chosen
/// for being on both one of the weekdays and at one of the hours, or on either.
public struct CellSelection: Equatable, Sendable {
    public enum Match: Sendable {
        /// On one of the weekdays at one of the hours: the cells of a check-in's hours alone.
        case both
        /// On one of the weekdays (at any hour) or at one of the hours (on any weekday).
        case either
    }

    public var weekdays: Set<Int>
    public var hours: Set<Int>
    public var match: Match

    public init(weekdays: Set<Int>, hours: Set<Int>, match: Match) {
        self.weekdays = weekdays
        self.hours = hours
        self.match = match
    }

    public func contains(_ cell: LocalHour) -> Bool {
        switch match {
        case .both: weekdays.contains(cell.weekday) && hours.contains(cell.hour)
        case .either: weekdays.contains(cell.weekday) || hours.contains(cell.hour)
        }
    }

    /// The cells of a venue this selects, of the 8 × 25 it can have (each weekday and every day,
    /// each hour and every hour): what a store that looks cells up one by one reads.
    public var cells: [LocalHour] {
        (0...LoudnessAggregate.everyWeekday).flatMap { weekday in
            (0...LoudnessAggregate.everyHour).map { LocalHour(weekday: weekday, hour: $0) }
        }.filter(contains)
    }
}
