/// A local weekday (0 = Monday) and hour (0–23) at a venue; also a cell of its loudness, where
/// `LoudnessAggregate.everyWeekday` and `.everyHour` stand for "any".
public struct LocalHour: Hashable, Comparable, Sendable {
    public var weekday: Int
    public var hour: Int

    public init(weekday: Int, hour: Int) {
        self.weekday = weekday
        self.hour = hour
    }

    public static func < (lhs: LocalHour, rhs: LocalHour) -> Bool {
        (lhs.weekday, lhs.hour) < (rhs.weekday, rhs.hour)
    }
}
