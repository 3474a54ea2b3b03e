import HearClearCore

/// One check-in's kept seconds in one local weekday and hour of a venue: what estimates are
/// fitted to and evaluated on. A check-in over two hours is two observations.
public struct HourObservation<Key: Hashable & Sendable>: Sendable {
    public var venue: String
    public var kind: VenueKind
    public var checkIn: Key
    /// Weekday 0–6 and hour 0–23: never one of the "any" cells.
    public var hour: LocalHour
    /// The energy mean of those seconds, dB.
    public var level: Double

    public init(venue: String, kind: VenueKind, checkIn: Key, hour: LocalHour, level: Double) {
        self.venue = venue
        self.kind = kind
        self.checkIn = checkIn
        self.hour = hour
        self.level = level
    }

    /// A store's per-hour sums of a check-in, when the check-in counts (`Analysis.counts`) and kept
    /// seconds in that hour; `nil` otherwise.
    public init?(
        venue: String, kind: VenueKind?, checkIn: Key, hour: LocalHour, samples: Int, energy: Double, status: CheckInStatus, deviceBanned: Bool
    ) {
        guard Analysis.counts(status: status, deviceBanned: deviceBanned), samples > 0 else { return nil }
        // A venue whose kind nobody said leans on the venues of no particular kind.
        self.init(venue: venue, kind: kind ?? .other, checkIn: checkIn, hour: hour, level: Level.level(energy: energy / Double(samples)))
    }
}
