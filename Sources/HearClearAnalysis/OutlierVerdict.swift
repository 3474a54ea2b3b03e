/// What the outlier rule says of one check-in's level, with its evidence: which check-ins it was
/// compared with, their median and how far from it a level may be. The admin pages and `verify`
/// read these rather than recomputing.
public struct OutlierVerdict: Sendable, Equatable {
    public enum Scope: Sendable, Equatable {
        case sameWeekdayAndHour, sameHourAnyWeekday, tooFewToDecide
    }

    public var scope: Scope
    /// How many check-ins the level was compared with.
    public var references: Int
    public var median: Double?
    /// How far from the median a level may be: max(3 × 1.4826 × MAD, 6 dB).
    public var allowedDistance: Double?
    public var isOutlier: Bool

    /// No decision: too few comparable check-ins.
    static func undecided(references: Int) -> OutlierVerdict {
        OutlierVerdict(scope: .tooFewToDecide, references: references, median: nil, allowedDistance: nil, isOutlier: false)
    }
}

extension Analysis {
    /// The outlier rule for a check-in with this level and home weekday, among the levels and home
    /// weekdays of the venue's other comparable check-ins at the same home hour: compared with those
    /// at the same weekday when there are enough, else with all of them; an outlier when further
    /// from their median than max(3 × 1.4826 × MAD, 6 dB).
    public static func outlierVerdict(level: Double, weekday: Int, among others: [(level: Double, weekday: Int)]) -> OutlierVerdict {
        let sameWeekday = others.filter { $0.weekday == weekday }
        let (scope, levels): (OutlierVerdict.Scope, [Double]) =
            sameWeekday.count >= minimumReferences ? (.sameWeekdayAndHour, sameWeekday.map(\.level)) : (.sameHourAnyWeekday, others.map(\.level))
        guard levels.count >= minimumReferences else { return .undecided(references: levels.count) }
        let center = median(levels)
        let allowed = allowedDistance(mad: medianAbsoluteDeviation(levels, around: center), floor: minimumOutlierDistanceDB)
        return OutlierVerdict(scope: scope, references: levels.count, median: center, allowedDistance: allowed, isOutlier: abs(level - center) > allowed)
    }
}
