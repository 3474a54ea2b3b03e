import Foundation
import GRDB
import HearClearAnalysis
import HearClearCore

// One record per table (Migrations/sqlite), typed: ids as UUIDs, instants as dates, enumerations
// as enums. The shipped schema stores instants as REAL seconds since 1970 and ids as lowercase
// text; `SQLiteRecord` says so once for every record.

/// The column conventions of every record here.
protocol SQLiteRecord: Codable, FetchableRecord, MutablePersistableRecord {}

extension SQLiteRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .lowercaseString }
}

/// How the calibration of a check-in was chosen.
public enum CalibrationSource: String, Codable, Sendable {
    /// The check-in brought its own.
    case checkIn = "checkin"
    /// The server applied its device model's offset, or the default.
    case server = "default"

    /// How `checkIn`'s calibration is chosen: its own, or the server's when it brings none.
    init(of checkIn: CheckIn) {
        self = checkIn.calibrationDB == nil ? .server : .checkIn
    }
}

extension CheckInStatus: DatabaseValueConvertible {}
extension VenueKind: DatabaseValueConvertible {}
extension Weighting: DatabaseValueConvertible {}
extension CalibrationSource: DatabaseValueConvertible {}

struct DeviceRecord: SQLiteRecord, PersistableRecord {
    static let databaseTableName = "device"

    /// Its row number, the key its check-ins keep (migration 0013); nil until inserted.
    var seq: Int64?
    var id: UUID
    var tokenHash: Data
    var model: String
    var platform: String
    var banned: Bool
    var createdAt: Date
    var lastSeenAt: Date

    var device: Device { Device(id: id, model: model, platform: platform, banned: banned) }
}

struct VenueRecord: SQLiteRecord, PersistableRecord {
    static let databaseTableName = "venue"

    var id: String
    var name: String {
        didSet { nameFolded = VenueQuery.folded(name) }
    }
    /// What a search compares: `name` as `VenueQuery.folded` makes it.
    private(set) var nameFolded: String
    var latitude: Double
    var longitude: Double
    var timezone: String
    var kind: VenueKind?
    var createdAt: Date
    var updatedAt: Date
    /// The device that created it; nil when no device may change it (only operators).
    var ownerDeviceId: UUID?

    init(
        id: String, name: String, latitude: Double, longitude: Double, timezone: String, kind: VenueKind?, createdAt: Date, updatedAt: Date,
        ownerDeviceId: UUID?
    ) {
        self.id = id
        self.name = name
        nameFolded = VenueQuery.folded(name)
        self.latitude = latitude
        self.longitude = longitude
        self.timezone = timezone
        self.kind = kind
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.ownerDeviceId = ownerDeviceId
    }

    var upsert: VenueUpsert {
        VenueUpsert(name: name, latitude: latitude, longitude: longitude, timezone: timezone, kind: kind)
    }
}

/// A row of a venue's history (`venue_change`).
struct VenueChangeRecord: SQLiteRecord, PersistableRecord {
    static let databaseTableName = "venue_change"

    var venueId: String
    var changedAt: Date
    var actor: String
    var action: VenueChangeAction
    var before: String?
    var after: String?
}

extension VenueChangeAction: DatabaseValueConvertible {}

/// A venue id merged into another venue.
struct VenueAliasRecord: SQLiteRecord, PersistableRecord {
    static let databaseTableName = "venue_alias"

    var id: String
    var venueId: String
}

struct CheckInRecord: SQLiteRecord {
    static let databaseTableName = "checkin"

    var seq: Int64?
    var id: UUID
    var venueId: String
    /// Its device's `seq`.
    var deviceSeq: Int64
    var contentHash: Data
    var startedAt: Date
    var intervalS: Double
    var weighting: Weighting
    var calibrationDb: Double
    var calibrationSource: CalibrationSource
    var samples: Int
    var droppedSamples: Int
    var levelDb: Double?
    var homeWeekday: Int
    var homeHour: Int
    var status: CheckInStatus
    var receivedAt: Date
    var markedOutlier = false
    /// When retention dropped its samples; its per-hour sums and level stay.
    var samplesPrunedAt: Date?
    /// Its samples and their dropped flags, as `SampleColumns` encodes them; nil once pruned.
    var sampleColumns: Data?
    /// The version of the model that classified its seconds, when the client said.
    var classesModel: Int?

    enum Columns {
        static let id = Column("id")
        static let venueId = Column("venue_id")
    }

    var home: LocalHour { LocalHour(weekday: homeWeekday, hour: homeHour) }

    /// Its samples with their dropped flags; nil once retention dropped them.
    func storedSamples() throws(SampleColumns.Unreadable) -> SampleColumns? {
        try SampleColumns.stored(sampleColumns, intervalS: intervalS, checkIn: id.wireString)
    }

    var stored: StoredCheckIn {
        StoredCheckIn(id: id, venueID: venueId, samples: samples, droppedSamples: droppedSamples, levelDB: levelDb, status: status)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        seq = inserted.rowID
    }

    /// Its columns, spelled out with the conventions of `SQLiteRecord`: encoded through `Codable`,
    /// each insert converted every key to snake case and took 15 % of the writer's time at ingest
    /// (docs/profiling.md, Ingest). Reading still goes through `Codable`.
    func encode(to container: inout PersistenceContainer) throws {
        container["seq"] = seq
        container["id"] = id.wireString
        container["venue_id"] = venueId
        container["device_seq"] = deviceSeq
        container["content_hash"] = contentHash
        container["started_at"] = startedAt.timeIntervalSince1970
        container["interval_s"] = intervalS
        container["weighting"] = weighting
        container["calibration_db"] = calibrationDb
        container["calibration_source"] = calibrationSource
        container["samples"] = samples
        container["dropped_samples"] = droppedSamples
        container["level_db"] = levelDb
        container["home_weekday"] = homeWeekday
        container["home_hour"] = homeHour
        container["status"] = status
        container["received_at"] = receivedAt.timeIntervalSince1970
        container["marked_outlier"] = markedOutlier
        container["samples_pruned_at"] = samplesPrunedAt?.timeIntervalSince1970
        container["sample_columns"] = sampleColumns
        container["classes_model"] = classesModel
    }
}

/// A row of the `loudness` cache: one cell of a venue. Written by `SQLiteRepository.decide` only.
struct LoudnessRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "loudness"

    var venueId: String
    var aggregate: LoudnessAggregate

    enum Columns {
        static let venueId = Column("venue_id")
    }

    init(row: Row) throws {
        venueId = row["venue_id"]
        aggregate = LoudnessAggregate(
            weekday: row["weekday"], hour: row["hour"], checkins: row["checkins"], sums: try CellSums(row: row), rounding: row["rounding"])
    }
}

extension CellSums {
    /// From a row holding the columns of `CellSums.columns` (of `checkin_hour` or `loudness`).
    init(row: Row) throws {
        try self.init(stored: Self.columns.map { column in try StoredValue(row[column.name], column: column.name) })
    }

    /// `storedValues`, to bind.
    var databaseValues: [DatabaseValue] { storedValues.map(\.databaseValue) }
}

extension StoredValue {
    /// A value as SQLite holds it.
    init(_ value: DatabaseValue, column: String) throws {
        switch value.storage {
        case .int64(let integer): self = .integer(Int(integer))
        case .double(let real): self = .real(real)
        case .blob(let bytes): self = .bytes(bytes)
        case .null: self = .null
        case .string: throw Unexpected(column: column, found: "a text")
        }
    }

    /// The value to bind.
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let integer): integer.databaseValue
        case .real(let real): real.databaseValue
        case .bytes(let bytes): bytes.databaseValue
        case .null: .null
        }
    }
}

struct CalibrationRecord: SQLiteRecord, PersistableRecord {
    static let databaseTableName = "calibration"

    var model: String
    var offsetDb: Double
    var updatedAt: Date
}
