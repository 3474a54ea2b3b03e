/// Some of a venue's stored cells, as a store selects them: those on `weekdays` (at any hour, and
/// the whole day) and those at `hours` (on any weekday, and every weekday together).
public struct CellSelection: Equatable, Sendable {
    public var weekdays: Set<Int>
    public var hours: Set<Int>

    public init(weekdays: Set<Int>, hours: Set<Int>) {
        self.weekdays = weekdays
        self.hours = hours
    }

    public func contains(_ cell: LocalHour) -> Bool {
        weekdays.contains(cell.weekday) || hours.contains(cell.hour)
    }
}
