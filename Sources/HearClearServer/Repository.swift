import Foundation
import HearClearCore

/// Where HearClear keeps its data. The routes know only this protocol, so another store
/// (PostgreSQL for deployments that outgrow one machine) can be added without touching them.
/// Implementations apply the rules of `Analysis` and keep the loudness aggregates in step with
/// the check-ins in the same transaction.
public protocol Repository: Sendable {
    func registerDevice(_ registration: DeviceRegistration, tokenHash: Data, at now: Date) async throws -> UUID
    func device(tokenHash: Data) async throws -> Device?

    /// Creates a venue owned by `device`, or updates it when `device` owns it.
    func saveVenue(id: String, _ venue: VenueUpsert, by device: UUID, at now: Date) async throws -> VenueSaveOutcome
    func venue(id: String) async throws -> VenueSummary?
    /// The venue an id merged into another now leads to; nil when the id was never merged.
    func mergedVenue(id: String) async throws -> String?
    func venues(matching query: VenueQuery) async throws -> [VenueSummary]

    func storeCheckIn(_ checkIn: CheckIn, contentHash: Data, by device: UUID, settings: ServerSettings, at now: Date) async throws -> CheckInOutcome
    /// The cached aggregates of a venue; `nil` when the venue is unknown.
    func loudness(venueID: String) async throws -> [LoudnessAggregate]?
    /// A number that changes whenever the venue's loudness may have (cheap: no database access).
    func changeCount(venueID: String) -> UInt64

    /// Deletes a device with its check-ins, samples and events, recomputing the aggregates of the
    /// venues they counted in, in one transaction; the venues it created lose their owner, and its
    /// id leaves their history. `false` when there is no such device.
    func deleteDevice(_ id: UUID) async throws -> Bool
    /// Drops the samples and events of check-ins that started before `cutoff` (retention), keeping
    /// their per-hour sums so no aggregate changes; returns how many check-ins were pruned.
    func pruneSamples(startedBefore cutoff: Date, at now: Date) async throws -> Int
}

public enum VenueSaveOutcome: Sendable, Equatable {
    case created
    case updated
    /// Another device created the venue (or none did): only it, and operators, may change it.
    case notOwner
    /// The id was merged into this venue; change that one.
    case merged(into: String)
}

public struct Device: Sendable, Equatable {
    public var id: UUID
    public var model: String
    public var platform: String
    public var banned: Bool
}

/// A venue with its overall aggregate.
public struct VenueSummary: Sendable, Equatable {
    public var id: String
    public var venue: VenueUpsert
    public var overall: LoudnessAggregate?
    public var distanceM: Double?
}

public struct VenueQuery: Sendable, Equatable {
    public var near: Coordinate?
    public var radiusM: Double
    public var nameContains: String?
    public var limit: Int
}

/// Energy sums over the usable check-ins of a venue for one span of local time.
public struct LoudnessAggregate: Sendable, Equatable {
    /// Weekday 0 (Monday) … 6, or `LoudnessAggregate.everyWeekday`.
    public var weekday: Int
    /// Hour 0 … 23, or `LoudnessAggregate.everyHour`.
    public var hour: Int
    public var checkins: Int
    public var samples: Int
    public var energy: Double

    public static let everyWeekday = 7
    public static let everyHour = 24

    public var levelDB: Double? {
        samples > 0 ? Level.level(energy: energy / Double(samples)) : nil
    }
}

/// A check-in as stored, with the verdict of the analysis.
public struct StoredCheckIn: Sendable, Equatable {
    public var id: UUID
    public var venueID: String
    public var samples: Int
    public var droppedSamples: Int
    public var levelDB: Double?
    public var status: CheckInStatus
}

public enum CheckInOutcome: Sendable, Equatable {
    case created(StoredCheckIn)
    /// The same check-in was stored before: a client retry.
    case replayed(StoredCheckIn)
    /// The id is taken by a different check-in.
    case conflict
    case unknownVenue
}
