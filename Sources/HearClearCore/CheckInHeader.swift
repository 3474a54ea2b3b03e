import Foundation

/// What v1's and v2's check-ins share besides their levels, and how it travels: the id the client
/// chose, the venue, when the recording began, the interval, the weighting and the calibration.
/// Both bodies decode and encode these keys through it, so the two cannot drift apart.
struct CheckInHeader {
    var id: UUID
    var venueID: String
    var startedAt: Date
    var intervalS: Double
    var weighting: Weighting
    var calibrationDB: Double?

    enum CodingKeys: String, CodingKey {
        case id, weighting
        case venueID = "venue_id"
        case startedAt = "started_at"
        case intervalS = "interval_s"
        case calibrationDB = "calibration_db"
    }

    init(id: UUID, venueID: String, startedAt: Date, intervalS: Double, weighting: Weighting, calibrationDB: Double?) {
        self.id = id
        self.venueID = venueID
        self.startedAt = startedAt
        self.intervalS = intervalS
        self.weighting = weighting
        self.calibrationDB = calibrationDB
    }

    /// From the body's object, whose other keys (the levels) are left to the body.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let id = UUID(uuidString: try container.decode(String.self, forKey: .id)) else {
            throw DecodingError.dataCorruptedError(
                forKey: .id, in: container, debugDescription: "expected a UUID the client chose, like 7d0c6b1e-5f3a-4b2c-9d8e-0a1b2c3d4e5f")
        }
        self.id = id
        venueID = try container.decode(String.self, forKey: .venueID)
        guard let startedAt = Timestamp.parse(try container.decode(String.self, forKey: .startedAt)) else {
            throw DecodingError.dataCorruptedError(
                forKey: .startedAt, in: container,
                debugDescription: "expected an ISO 8601 date and time with a zone, like 2026-11-20T21:15:00+11:00")
        }
        self.startedAt = startedAt
        intervalS = try container.decodeIfPresent(Double.self, forKey: .intervalS) ?? 1
        weighting = try container.decodeIfPresent(Weighting.self, forKey: .weighting) ?? .a
        calibrationDB = try container.decodeIfPresent(Double.self, forKey: .calibrationDB)
    }

    /// Into the body's object, before its levels.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.wireString, forKey: .id)
        try container.encode(venueID, forKey: .venueID)
        try container.encode(Timestamp.format(startedAt), forKey: .startedAt)
        try container.encode(intervalS, forKey: .intervalS)
        try container.encode(weighting, forKey: .weighting)
        try container.encodeIfPresent(calibrationDB, forKey: .calibrationDB)
    }
}
