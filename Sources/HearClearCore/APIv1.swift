import Foundation

// The JSON documents of API v1, shared by server and client. Field names on the wire are snake_case.
// Optional values the API documents as `null` are written as `null`, never left out, so a client can
// tell "no data" from "an older server".

/// `POST /api/v1/devices` body.
public struct DeviceRegistration: Codable, Sendable, Equatable {
    public var model: String
    public var platform: String

    public init(model: String, platform: String) {
        self.model = model
        self.platform = platform
    }
}

/// `POST /api/v1/devices` answer. The token is shown once; the server keeps only its hash.
public struct DeviceCredentials: Codable, Sendable, Equatable {
    public var deviceID: UUID
    public var token: String

    public init(deviceID: UUID, token: String) {
        self.deviceID = deviceID
        self.token = token
    }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case token
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deviceID.wireString, forKey: .deviceID)
        try container.encode(token, forKey: .token)
    }
}

/// `PUT /api/v1/venues/{venue_id}` body.
public struct VenueUpsert: Codable, Sendable, Equatable {
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// IANA time zone name, e.g. `Australia/Sydney`: weekdays and hours are the venue's local ones.
    public var timezone: String
    /// What sort of place it is. Left out (or `null`) of a change, the kind stored stays.
    public var kind: VenueKind?

    public init(name: String, latitude: Double, longitude: Double, timezone: String, kind: VenueKind? = nil) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.timezone = timezone
        self.kind = kind
    }

    /// This change applied to what is stored: everything it says, and the stored kind where it says none.
    public func applied(to stored: VenueUpsert) -> VenueUpsert {
        var applied = self
        applied.kind = kind ?? stored.kind
        return applied
    }
}

/// A venue as the API shows it, with its overall loudness.
public struct Venue: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var timezone: String
    /// `null` until its owner or an operator says.
    public var kind: VenueKind?
    /// Usable check-ins.
    public var checkins: Int
    public var levelDB: Double?
    public var label: String?
    /// Only in answers to a `near` search.
    public var distanceM: Double?

    public init(
        id: String, name: String, latitude: Double, longitude: Double, timezone: String, kind: VenueKind? = nil,
        checkins: Int, levelDB: Double?, label: String?, distanceM: Double? = nil
    ) {
        self.id = id
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.timezone = timezone
        self.kind = kind
        self.checkins = checkins
        self.levelDB = levelDB
        self.label = label
        self.distanceM = distanceM
    }

    enum CodingKeys: String, CodingKey {
        case id, name, latitude, longitude, timezone, kind, checkins, label
        case levelDB = "level_db"
        case distanceM = "distance_m"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encode(timezone, forKey: .timezone)
        try container.encode(kind, forKey: .kind)
        try container.encode(checkins, forKey: .checkins)
        try container.encode(levelDB, forKey: .levelDB)
        try container.encode(label, forKey: .label)
        try container.encodeIfPresent(distanceM, forKey: .distanceM)
    }
}

/// `GET /api/v1/venues` answer.
public struct VenueList: Codable, Sendable, Equatable {
    public var venues: [Venue]

    public init(venues: [Venue]) {
        self.venues = venues
    }
}

/// Frequency weighting to IEC 61672-1.
public enum Weighting: String, WireEnum, Sendable {
    /// A-weighting: the ear's sensitivity at moderate levels.
    case a = "A"
    /// Zero weighting: the signal as captured.
    case z = "Z"
}

/// One interval's levels, in dBFS as the device measured them (before calibration).
public struct Sample: Codable, Sendable, Equatable {
    /// Seconds since the check-in's `started_at`.
    public var t: Double
    /// RMS level of the interval, dBFS.
    public var avg: Double
    /// Largest absolute sample of the interval, dBFS.
    public var peak: Double
    /// The Fast maximum, C-weighted level and octave bands, when the meter measured them: API v2
    /// carries them, API v1 (whose samples are `t`, `avg` and `peak` only) does not.
    public var details: LevelDetails? = nil
    /// How likely the interval holds speech and music, when the meter classified it: API v2 carries
    /// them (in whole percent), API v1 does not.
    public var classes: SoundClasses? = nil

    public init(t: Double, avg: Double, peak: Double, details: LevelDetails? = nil, classes: SoundClasses? = nil) {
        self.t = t
        self.avg = avg
        self.peak = peak
        self.details = details
        self.classes = classes
    }

    enum CodingKeys: String, CodingKey {
        case t, avg, peak
    }

    /// Levels to the tenth of a dB and classes to the whole percent, as check-ins are uploaded: the
    /// precision the API reports, and a third fewer bytes on the wire than hundredths. Rounding
    /// keeps `avg ≤ peak ≤ 0` (`Level.uploaded`).
    public var roundedForUpload: Sample {
        Sample(t: t, avg: Level.uploaded(avg), peak: Level.uploaded(peak), details: details?.rounded, classes: classes?.rounded)
    }
}

/// A loud moment: consecutive loud seconds merged into one event.
public struct LoudEvent: Codable, Sendable, Equatable {
    /// Seconds since the check-in's `started_at`.
    public var t: Double
    /// The loudest peak of the event, dBFS.
    public var peak: Double
    public var durationS: Double
    /// What its intervals mostly held (`SoundClasses.dominant`): `speech`, `music` or `other`, when
    /// the meter classified them; `class` on the wire, absent otherwise.
    public var sound: SoundClasses.Dominant?

    public init(t: Double, peak: Double, durationS: Double, sound: SoundClasses.Dominant? = nil) {
        self.t = t
        self.peak = peak
        self.durationS = durationS
        self.sound = sound
    }

    enum CodingKeys: String, CodingKey {
        case t, peak
        case durationS = "duration_s"
        case sound = "class"
    }
}

/// `POST /api/v1/checkins` body: one session of measurements at a venue.
public struct CheckIn: Codable, Sendable, Equatable {
    /// The longest check-in the API takes: an evening, and a night's recording of a venue.
    public static let longestSeconds: Double = 12 * 3600
    /// The fewest intervals a check-in counts with, once the server has dropped its spikes: one of
    /// fewer is stored as `too_short` and left out of the venue's levels (the rule is
    /// `Analysis.minimumKeptSamples`; a client can refuse to measure for less).
    public static let fewestCountedIntervals = 15

    /// Chosen by the client, so that a retry of the same upload is recognised.
    public var id: UUID
    public var venueID: String
    public var startedAt: Date
    public var intervalS: Double
    public var weighting: Weighting
    /// Added to dBFS to estimate dB SPL; the server's default applies when absent.
    public var calibrationDB: Double?
    public var samples: [Sample]
    public var events: [LoudEvent]
    /// The version of the speech and music model that classified the samples
    /// (`SoundClassifier.version`); nil when none did, or the client did not say (API v1 never does).
    public var classesModel: Int?

    public init(
        id: UUID, venueID: String, startedAt: Date, intervalS: Double = 1, weighting: Weighting = .a,
        calibrationDB: Double? = nil, samples: [Sample], events: [LoudEvent] = [], classesModel: Int? = nil
    ) {
        self.id = id
        self.venueID = venueID
        self.startedAt = startedAt
        self.intervalS = intervalS
        self.weighting = weighting
        self.calibrationDB = calibrationDB
        self.samples = samples
        self.events = events
        self.classesModel = classesModel
    }

    enum CodingKeys: String, CodingKey {
        case samples, events
    }

    public init(from decoder: any Decoder) throws {
        let header = try CheckInHeader(from: decoder)
        (id, venueID, startedAt, intervalS, weighting, calibrationDB) =
            (header.id, header.venueID, header.startedAt, header.intervalS, header.weighting, header.calibrationDB)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        samples = try container.decode([Sample].self, forKey: .samples)
        events = try container.decodeIfPresent([LoudEvent].self, forKey: .events) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        try CheckInHeader(id: id, venueID: venueID, startedAt: startedAt, intervalS: intervalS, weighting: weighting, calibrationDB: calibrationDB)
            .encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(samples, forKey: .samples)
        try container.encode(events, forKey: .events)
    }
}

extension UUID {
    /// UUIDs travel in lower case, as RFC 9562 recommends.
    public var wireString: String { uuidString.lowercased() }
}

/// ISO 8601 timestamps as the API writes them.
public enum Timestamp {
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            return date
        }
        return try? Date(text, strategy: .iso8601)
    }

    public static func format(_ date: Date) -> String {
        if date.timeIntervalSince1970.rounded() == date.timeIntervalSince1970 {
            return date.formatted(.iso8601)
        }
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

public enum CheckInStatus: String, Codable, Sendable, CaseIterable {
    /// Counted in the venue's loudness.
    case accepted
    /// Fewer kept samples than a check-in needs to say anything; stored, not counted.
    case tooShort = "too_short"
    /// Far from the venue's usual level at that time; stored, not counted.
    case outlier

    /// The status as people read it ("too short"), where the API's spelling would show.
    public var words: String {
        switch self {
        case .accepted: "accepted"
        case .tooShort: "too short"
        case .outlier: "outlier"
        }
    }
}

/// `POST /api/v1/checkins` answer.
public struct CheckInReceipt: Codable, Sendable, Equatable {
    public var id: UUID
    public var venueID: String
    public var samples: Int
    public var droppedSamples: Int
    public var levelDB: Double?
    public var label: String?
    public var status: CheckInStatus

    public init(
        id: UUID, venueID: String, samples: Int, droppedSamples: Int, levelDB: Double?, label: String?,
        status: CheckInStatus
    ) {
        self.id = id
        self.venueID = venueID
        self.samples = samples
        self.droppedSamples = droppedSamples
        self.levelDB = levelDB
        self.label = label
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case id, samples, label, status
        case venueID = "venue_id"
        case droppedSamples = "dropped_samples"
        case levelDB = "level_db"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.wireString, forKey: .id)
        try container.encode(venueID, forKey: .venueID)
        try container.encode(samples, forKey: .samples)
        try container.encode(droppedSamples, forKey: .droppedSamples)
        try container.encode(levelDB, forKey: .levelDB)
        try container.encode(label, forKey: .label)
        try container.encode(status, forKey: .status)
    }
}

/// Days of the week, Monday first as in ISO 8601.
public enum Weekday: String, Codable, Sendable, CaseIterable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// 0 for Monday … 6 for Sunday.
    public var index: Int { Self.allCases.firstIndex(of: self)! }

    public init(index: Int) {
        self = Self.allCases[index]
    }
}

/// How much a cell's level can be trusted, from how many check-ins it rests on.
public enum Confidence: String, Codable, Sendable, CaseIterable {
    case none, low, medium, high

    public init(checkins: Int) {
        switch checkins {
        case ..<1: self = .none
        case 1: self = .low
        case 2...4: self = .medium
        default: self = .high
        }
    }
}

/// The loudness of a venue over some span of local time (a weekday-hour, a weekday, an hour, or always).
public struct LoudnessCell: Codable, Sendable, Equatable {
    public var weekday: Weekday?
    public var hour: Int?
    public var levelDB: Double?
    public var label: String?
    public var checkins: Int
    public var samples: Int
    public var confidence: Confidence

    public init(
        weekday: Weekday? = nil, hour: Int? = nil, levelDB: Double?, label: String?, checkins: Int, samples: Int
    ) {
        self.weekday = weekday
        self.hour = hour
        self.levelDB = levelDB
        self.label = label
        self.checkins = checkins
        self.samples = samples
        self.confidence = Confidence(checkins: checkins)
    }

    enum CodingKeys: String, CodingKey {
        case weekday, hour, label, checkins, samples, confidence
        case levelDB = "level_db"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(weekday, forKey: .weekday)
        try container.encodeIfPresent(hour, forKey: .hour)
        try container.encode(levelDB, forKey: .levelDB)
        try container.encode(label, forKey: .label)
        try container.encode(checkins, forKey: .checkins)
        try container.encode(samples, forKey: .samples)
        try container.encode(confidence, forKey: .confidence)
    }
}

/// `GET /api/v1/venues/{venue_id}/loudness` answer.
public typealias Loudness = LoudnessDocument<LoudnessCell>

/// A loudness answer: one cell overall, per weekday, per hour and per weekday and hour, each a
/// `Cell` (v1's `LoudnessCell`, v2's `ConversationCell`). Weekdays and hours are the venue's local time.
public struct LoudnessDocument<Cell: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public struct WeekdayRow: Codable, Sendable, Equatable {
        public var weekday: Weekday
        /// 24 cells, hour 0 first.
        public var hours: [Cell]

        public init(weekday: Weekday, hours: [Cell]) {
            self.weekday = weekday
            self.hours = hours
        }
    }

    public var venueID: String
    public var unit: String
    public var overall: Cell
    /// 7 cells, Monday first.
    public var byWeekday: [Cell]
    /// 24 cells, hour 0 first.
    public var byHour: [Cell]
    /// 7 rows, Monday first.
    public var grid: [WeekdayRow]

    public init(venueID: String, unit: String, overall: Cell, byWeekday: [Cell], byHour: [Cell], grid: [WeekdayRow]) {
        self.venueID = venueID
        self.unit = unit
        self.overall = overall
        self.byWeekday = byWeekday
        self.byHour = byHour
        self.grid = grid
    }

    enum CodingKeys: String, CodingKey {
        case unit, overall, grid
        case venueID = "venue_id"
        case byWeekday = "by_weekday"
        case byHour = "by_hour"
    }
}

/// Every error answer: `{"error": {"message": "..."}}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public var message: String
    }

    public var error: Detail

    public init(message: String) {
        self.error = Detail(message: message)
    }
}
