import Foundation
import GRDB

// One record per table (Migrations/sql). Column names are the snake_case of the property names.

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

    enum Columns {
        static let id = Column("id")
        static let tokenHash = Column("token_hash")
        static let model = Column("model")
        static let createdAt = Column("created_at")
        static let lastSeenAt = Column("last_seen_at")
    }

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

    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let latitude = Column("latitude")
        static let longitude = Column("longitude")
    }
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

    enum Columns {
        static let seq = Column("seq")
        static let id = Column("id")
        static let venueId = Column("venue_id")
        static let deviceId = Column("device_id")
        static let status = Column("status")
        static let receivedAt = Column("received_at")
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
        static let weekday = Column("weekday")
        static let hour = Column("hour")
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
