import Foundation

/// Converts instants to a venue's local weekday and hour, daylight saving included.
public struct VenueClock: Sendable {
    public let timeZone: TimeZone

    public init?(timeZoneIdentifier: String) {
        guard let timeZone = TimeZone(identifier: timeZoneIdentifier) else { return nil }
        self.timeZone = timeZone
    }

    public func localHour(at instant: TimeInterval, offset: Int? = nil) -> LocalHour {
        let offset = offset ?? timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))
        let local = Int((instant + Double(offset)).rounded(.down))
        let day = local.floorDivided(by: 86_400)
        // 1970-01-01 was a Thursday, weekday 3 counting from Monday.
        let weekday = (day + 3).floorModulo(7)
        let hour = (local - day * 86_400) / 3_600
        return LocalHour(weekday: weekday, hour: hour)
    }

    /// The local date, as days since 1970-01-01, of the instant.
    public func localDay(at instant: TimeInterval) -> Int {
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))
        return Int((instant + Double(offset)).rounded(.down)).floorDivided(by: 86_400)
    }

    /// The local date on which a check-in that began at `start` (at most 12 hours long) was in
    /// `hour`: the first of its hours that falls there.
    public func localDay(of hour: LocalHour, from start: TimeInterval) -> Int {
        for step in 0...13 {
            let instant = start + Double(step) * 3_600
            if localHour(at: instant) == hour { return localDay(at: instant) }
        }
        return localDay(at: start)
    }

    /// The local hour of each instant (ascending). The zone's offset is looked up once when it
    /// is the same at both ends, which is the case for all but the check-ins that span a DST change.
    public func localHours(at instants: [TimeInterval]) -> [LocalHour] {
        guard let first = instants.first, let last = instants.last else { return [] }
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: first))
        let steady = offset == timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: last))
        return instants.map { localHour(at: $0, offset: steady ? offset : nil) }
    }
}

extension Int {
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }

    fileprivate func floorModulo(_ divisor: Int) -> Int {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
