import Foundation
import GRDB
import HearClearCore

// One record per table (Migrations/sql). Column names are the snake_case of the property names;
// `Columns` names those the query interface filters on.

struct DeviceRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "device"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var id: String
    var tokenHash: Data
    var model: String
    var platform: String
    var banned: Bool
    var createdAt: Double
    var lastSeenAt: Double

    var device: Device? {
        UUID(uuidString: id).map { Device(id: $0, model: model, platform: platform, banned: banned) }
    }
}

struct VenueRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "venue"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var id: String
    var name: String
    var latitude: Double
    var longitude: Double
    var timezone: String
    var createdAt: Double
    var updatedAt: Double
    /// The device that created it; nil when no device may change it (only operators).
    var ownerDeviceId: String?

    var upsert: VenueUpsert {
        VenueUpsert(name: name, latitude: latitude, longitude: longitude, timezone: timezone)
    }
}

/// A row of a venue's history (`venue_change`).
struct VenueChangeRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "venue_change"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var venueId: String
    var changedAt: Double
    var actor: String
    var action: String
    var before: String?
    var after: String?
}

/// A venue id merged into another venue.
struct VenueAliasRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "venue_alias"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var id: String
    var venueId: String
}

struct CheckInRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "checkin"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var seq: Int64?
    var id: String
    var venueId: String
    var deviceId: String
    var contentHash: Data
    var startedAt: Double
    var intervalS: Double
    var weighting: String
    var calibrationDb: Double
    var calibrationSource: String
    var samples: Int
    var droppedSamples: Int
    var levelDb: Double?
    var homeWeekday: Int
    var homeHour: Int
    var status: String
    var receivedAt: Double
    var markedOutlier = false
    /// When retention dropped its samples; its per-hour sums and level stay.
    var samplesPrunedAt: Double?

    enum Columns {
        static let id = Column("id")
        static let venueId = Column("venue_id")
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        seq = inserted.rowID
    }
}

/// A row of the `loudness` cache (and of its recomputation).
struct LoudnessRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "loudness"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var venueId: String
    var weekday: Int
    var hour: Int
    var checkins: Int
    var samples: Int
    var energy: Double

    enum Columns {
        static let venueId = Column("venue_id")
    }

    var aggregate: LoudnessAggregate {
        LoudnessAggregate(weekday: weekday, hour: hour, checkins: checkins, samples: samples, energy: energy)
    }
}

struct CalibrationRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "calibration"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var model: String
    var offsetDb: Double
    var updatedAt: Double
}
