import HearClearCore

/// A check-in as the status rule sees it: what the stores fetch for a venue's home hour.
public struct StatusCandidate<Key: Hashable & Sendable>: Sendable {
    public var key: Key
    public var keptSamples: Int
    public var levelDB: Double?
    public var home: LocalHour
    public var status: CheckInStatus
    public var markedOutlier: Bool
    public var deviceBanned: Bool

    public init(key: Key, keptSamples: Int, levelDB: Double?, home: LocalHour, status: CheckInStatus, markedOutlier: Bool, deviceBanned: Bool) {
        self.key = key
        self.keptSamples = keptSamples
        self.levelDB = levelDB
        self.home = home
        self.status = status
        self.markedOutlier = markedOutlier
        self.deviceBanned = deviceBanned
    }

    /// Whether it is one of the "other check-ins" the outlier rule compares with: it passed the
    /// spike and length rules, no operator set it aside and its device is not banned — whatever
    /// its own outlier status, so that decisions do not depend on arrival order.
    var isReference: Bool {
        !Analysis.isTooShort(keptSamples: keptSamples) && levelDB != nil && !markedOutlier && !deviceBanned
    }
}

/// A status the rule gives that differs from the one stored.
public struct StatusChange<Key: Hashable & Sendable>: Equatable, Sendable {
    public var key: Key
    public var from: CheckInStatus
    public var to: CheckInStatus
    public var deviceBanned: Bool

    public init(key: Key, from: CheckInStatus, to: CheckInStatus, deviceBanned: Bool) {
        self.key = key
        self.from = from
        self.to = to
        self.deviceBanned = deviceBanned
    }
}

extension Analysis {
    public static func isTooShort(keptSamples: Int) -> Bool {
        keptSamples < minimumKeptSamples
    }

    /// The status of a check-in, in order: too few kept samples, then an operator's mark, then the
    /// outlier rule's verdict (none: not enough references, or not judged yet).
    public static func status(keptSamples: Int, markedOutlier: Bool, verdict: OutlierVerdict?) -> CheckInStatus {
        if isTooShort(keptSamples: keptSamples) { return .tooShort }
        if markedOutlier { return .outlier }
        return verdict?.isOutlier == true ? .outlier : .accepted
    }

    /// Whether a check-in adds to its venue's loudness.
    public static func counts(status: CheckInStatus, deviceBanned: Bool) -> Bool {
        status == .accepted && !deviceBanned
    }

    /// The outlier verdict for one check-in among the venue's others (`candidates` may include it,
    /// and check-ins at other home hours: it is compared only with those at its own).
    public static func outlierVerdict<Key>(for candidate: StatusCandidate<Key>, among candidates: [StatusCandidate<Key>]) -> OutlierVerdict? {
        guard let level = candidate.levelDB, !isTooShort(keptSamples: candidate.keptSamples) else { return nil }
        let others = candidates.filter { $0.key != candidate.key && $0.isReference && $0.home.hour == candidate.home.hour }
        return outlierVerdict(level: level, weekday: candidate.home.weekday, among: others.compactMap { other in other.levelDB.map { ($0, other.home.weekday) } })
    }

    /// Applies the status rule to a venue's check-ins (all of them, or those of the home hours a
    /// change touched: each is compared with the others at its home hour, any weekday, as the
    /// outlier rule falls back to the hour when a weekday-hour has too few). Returns the check-ins
    /// whose status changes.
    @_specialize(exported: true, where Key == Int64)
    public static func statusChanges<Key>(among candidates: [StatusCandidate<Key>]) -> [StatusChange<Key>] {
        Dictionary(grouping: candidates, by: \.home.hour).sorted { $0.key < $1.key }.flatMap { _, group in
            group.compactMap { candidate -> StatusChange<Key>? in
                let decided = status(
                    keptSamples: candidate.keptSamples, markedOutlier: candidate.markedOutlier,
                    verdict: outlierVerdict(for: candidate, among: group))
                return decided == candidate.status
                    ? nil : StatusChange(key: candidate.key, from: candidate.status, to: decided, deviceBanned: candidate.deviceBanned)
            }
        }
    }
}

extension Array {
    /// The status a check-in was given by these changes; nil when they left it alone.
    public func status<Key>(of checkIn: Key) -> CheckInStatus? where Element == StatusChange<Key> {
        last { $0.key == checkIn }?.to
    }
}
