import Foundation
import HearClearAnalysis
import HearClearCore

/// Where HearClear keeps its data: persistence only. The routes know only this protocol, so
/// SQLite and PostgreSQL serve the same routes. Implementations fetch what the rules of `Analysis`
/// need, save what they decide, and keep the loudness cells in step with the check-ins in the same
/// transaction; after each commit that may change a venue's answers they tell the `VenueChangeFeed`
/// they were made with.
public protocol Repository: Sendable {
    func registerDevice(_ registration: DeviceRegistration, tokenHash: Data, at now: Date) async throws -> UUID
    func device(tokenHash: Data) async throws -> Device?

    /// Creates a venue owned by `device`, or updates it when `device` owns it.
    func saveVenue(id: String, _ venue: VenueUpsert, by device: UUID, at now: Date) async throws -> VenueSaveOutcome
    func venue(id: String) async throws -> VenueSummary?
    /// The venue an id merged into another now leads to; nil when the id was never merged.
    func mergedVenue(id: String) async throws -> String?
    /// The offset the operators set for a device model's check-ins that bring no calibration; nil when none is set.
    func calibrationOffset(model: String) async throws -> Double?
    func venues(matching query: VenueQuery) async throws -> [VenueSummary]

    /// Stores a check-in with its analysis. Without its own calibration, the device model's offset
    /// from the calibration table applies, else the default the store was made with.
    func storeCheckIn(_ checkIn: CheckIn, contentHash: Data, by device: UUID, at now: Date) async throws -> CheckInOutcome
    /// A check-in as `device` uploaded it: its levels as measured (with their details, if it had
    /// them), its own calibration if it brought one, its events. `nil` when there is no such
    /// check-in or another device uploaded it. After retention, its samples and events are gone.
    func uploadedCheckIn(id: UUID, by device: UUID) async throws -> CheckIn?
    /// The stored cells of a venue; `nil` when the venue is unknown.
    func loudness(venueID: String) async throws -> [LoudnessAggregate]?
    /// The counting check-ins of these venues (`Analysis.counts`), with the local hours each kept
    /// samples in, and each venue's clock: what `CellEvidence` is made of. Venues without one are left out.
    func evidence(venueIDs: [String]) async throws -> [String: VenueEvidence]
    /// Every counting check-in's kept seconds per local hour, each with its venue's kind, ordered by
    /// check-in: what estimates are fitted to and evaluated on (`HourEstimates`).
    func hourObservations() async throws -> [HourObservation<Int64>]

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

extension Device {
    /// How fresh a device's "last seen" is kept. Writing it at every upload would make every upload
    /// of one device wait on that device's row in turn on PostgreSQL (a backlog synced over several
    /// connections, or several servers); once a minute is all the admin pages need.
    static let lastSeenResolution: TimeInterval = 60
}

/// What the cells of a venue rest on (`CellEvidence`), as a store reads it.
public struct VenueEvidence: Sendable {
    public var clock: VenueClock
    public var checkIns: [CellEvidence.CheckIn]

    public var cells: [LocalHour: CellEvidence] { CellEvidence.cells(from: checkIns, clock: clock) }

    /// One row of the stores' query: a counting check-in's local hour, with its venue, device and
    /// classes' model.
    typealias Row = (venue: String, timezone: String, seq: Int64, device: String, started: Double, classesModel: Int?, hour: LocalHour)

    /// The stores' rows (a check-in's together, as they come ordered by check-in) by venue.
    static func grouped(_ rows: [Row]) -> [String: VenueEvidence] {
        var venues: [String: VenueEvidence] = [:]
        var lastSeq: Int64?
        for row in rows {
            if venues[row.venue] == nil {
                guard let clock = VenueClock(timeZoneIdentifier: row.timezone) else { continue }
                venues[row.venue] = VenueEvidence(clock: clock, checkIns: [])
            }
            if row.seq == lastSeq {
                venues[row.venue]!.checkIns[venues[row.venue]!.checkIns.count - 1].hours.append(row.hour)
            } else {
                venues[row.venue]!.checkIns.append(
                    CellEvidence.CheckIn(device: row.device, startedAt: row.started, classesModel: row.classesModel, hours: [row.hour]))
            }
            lastSeq = row.seq
        }
        return venues
    }
}

/// A venue with the aggregate of one of its cells: overall, unless the query asked for another.
public struct VenueSummary: Sendable, Equatable {
    public var id: String
    public var venue: VenueUpsert
    public var aggregate: LoudnessAggregate?
    public var distanceM: Double?
}

public struct VenueQuery: Sendable, Equatable {
    public var near: Coordinate?
    public var radiusM: Double
    /// Words that a venue's name must each hold, in any order and case.
    public var nameWords: String?
    public var limit: Int
    /// The cell whose aggregate each venue comes with.
    public var cell = VenueQuery.overall

    public static let overall = LocalHour(weekday: LoudnessAggregate.everyWeekday, hour: LoudnessAggregate.everyHour)
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
