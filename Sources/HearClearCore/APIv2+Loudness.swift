/// `GET /api/v2/venues/{venue_id}/loudness` answer: v1's document with the conversation measures in each cell.
public typealias ConversationLoudness = LoudnessDocument<ConversationCell>

/// A cell of API v2's loudness answer: v1's cell, and whether people can talk there
/// (docs/analysis.md). Every added value is `null` in a cell without data; `c_minus_a` also when
/// some of the cell's seconds came without details (API v1 check-ins), since C and A would then
/// cover different seconds. A weekday-hour nobody measured may be an estimate instead
/// (`estimated`): its level, label and conversation measures from the estimate's central level,
/// with its interval, and no check-in, sample, spread or evidence.
public struct ConversationCell: Codable, Sendable, Equatable {
    public var cell: LoudnessCell
    /// The speech interference level (SIL4), dB.
    public var sil: Double?
    /// Whether `sil` was estimated from the A-weighted level (no octave bands in the cell).
    public var silEstimated: Bool?
    /// The least vocal effort for a talker at the configured distance to be understood at least fairly.
    public var effort: VocalEffort?
    /// The same, for a listener with the configured SNR loss.
    public var effortHearingLoss: VocalEffort?
    /// At normal voice.
    public var intelligibility: Intelligibility?
    /// The A-weighted level exceeded in 10, 50 and 90 % of the cell's kept seconds, dB(A), read
    /// from 0.5 dB bins (so to within a quarter decibel).
    public var l10: Double?
    public var l50: Double?
    public var l90: Double?
    /// The 90th percentile of the seconds' Fast-weighted maxima (LAFmax), dB(A): how loud the
    /// bursts of the loudest tenth of the seconds get; `null` when no second carried it (API v1).
    public var lafmaxP90: Double?
    /// LCeq − LAeq, dB: large when the sound is bass-heavy.
    public var cMinusA: Double?
    /// The share (0 to 1, to the hundredth) of the cell's classified seconds in which speech, and
    /// music, was detected; `null` when none was classified (API v1, or no classes sent).
    public var speechShare: Double?
    public var musicShare: Double?
    /// The versions of the speech and music model that classified the check-ins behind the shares,
    /// oldest first, of those whose client said which (a share mixes the seconds of every version,
    /// docs/sound-classes.md); `null` when the shares are.
    public var classesModels: [Int]?
    /// Distinct devices and local days the cell's check-ins come from, and the newest of those days
    /// (`2026-11-20`, never a time): what `confidence` is decided from in API v2.
    public var devices: Int?
    public var days: Int?
    public var lastMeasured: String?
    /// Whether the cell is an estimate for a weekday-hour nobody measured.
    public var estimated: Bool
    /// An estimate's 80 % interval, `[low, high]` dB(A); `null` for a measured cell.
    public var interval80: [Double]?
    /// The efforts at the interval's low and high ends (`["raised", "loud"]`: a raised voice,
    /// possibly loud); `null` for a measured cell.
    public var effortRange: [VocalEffort]?

    /// The effort for a listener with hearing loss, or with typical hearing.
    public func effort(hearingLoss: Bool) -> VocalEffort? { hearingLoss ? effortHearingLoss : effort }

    public init(
        cell: LoudnessCell, sil: Double? = nil, silEstimated: Bool? = nil, effort: VocalEffort? = nil, effortHearingLoss: VocalEffort? = nil,
        intelligibility: Intelligibility? = nil, l10: Double? = nil, l50: Double? = nil, l90: Double? = nil, lafmaxP90: Double? = nil,
        cMinusA: Double? = nil, speechShare: Double? = nil, musicShare: Double? = nil, classesModels: [Int]? = nil, devices: Int? = nil, days: Int? = nil,
        lastMeasured: String? = nil, estimated: Bool = false, interval80: [Double]? = nil, effortRange: [VocalEffort]? = nil
    ) {
        self.cell = cell
        self.sil = sil
        self.silEstimated = silEstimated
        self.effort = effort
        self.effortHearingLoss = effortHearingLoss
        self.intelligibility = intelligibility
        self.l10 = l10
        self.l50 = l50
        self.l90 = l90
        self.lafmaxP90 = lafmaxP90
        self.cMinusA = cMinusA
        self.speechShare = speechShare
        self.musicShare = musicShare
        self.classesModels = classesModels
        self.devices = devices
        self.days = days
        self.lastMeasured = lastMeasured
        self.estimated = estimated
        self.interval80 = interval80
        self.effortRange = effortRange
    }

    enum CodingKeys: String, CodingKey {
        case sil, effort, intelligibility, devices, days, l10, l50, l90, estimated
        case interval80 = "interval_80"
        case effortRange = "effort_range"
        case lafmaxP90 = "lafmax_p90"
        case silEstimated = "sil_estimated"
        case effortHearingLoss = "effort_hearing_loss"
        case cMinusA = "c_minus_a"
        case speechShare = "speech_share"
        case musicShare = "music_share"
        case classesModels = "classes_models"
        case lastMeasured = "last_measured"
    }

    /// v1's keys and the added ones, side by side in one object.
    public init(from decoder: any Decoder) throws {
        cell = try LoudnessCell(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sil = try container.decodeIfPresent(Double.self, forKey: .sil)
        silEstimated = try container.decodeIfPresent(Bool.self, forKey: .silEstimated)
        effort = try container.decodeIfPresent(VocalEffort.self, forKey: .effort)
        effortHearingLoss = try container.decodeIfPresent(VocalEffort.self, forKey: .effortHearingLoss)
        intelligibility = try container.decodeIfPresent(Intelligibility.self, forKey: .intelligibility)
        l10 = try container.decodeIfPresent(Double.self, forKey: .l10)
        l50 = try container.decodeIfPresent(Double.self, forKey: .l50)
        l90 = try container.decodeIfPresent(Double.self, forKey: .l90)
        lafmaxP90 = try container.decodeIfPresent(Double.self, forKey: .lafmaxP90)
        cMinusA = try container.decodeIfPresent(Double.self, forKey: .cMinusA)
        speechShare = try container.decodeIfPresent(Double.self, forKey: .speechShare)
        musicShare = try container.decodeIfPresent(Double.self, forKey: .musicShare)
        classesModels = try container.decodeIfPresent([Int].self, forKey: .classesModels)
        devices = try container.decodeIfPresent(Int.self, forKey: .devices)
        days = try container.decodeIfPresent(Int.self, forKey: .days)
        lastMeasured = try container.decodeIfPresent(String.self, forKey: .lastMeasured)
        // Absent from an older server's answer: every cell it sent was measured or empty.
        estimated = try container.decodeIfPresent(Bool.self, forKey: .estimated) ?? false
        interval80 = try container.decodeIfPresent([Double].self, forKey: .interval80)
        effortRange = try container.decodeIfPresent([VocalEffort].self, forKey: .effortRange)
    }

    public func encode(to encoder: any Encoder) throws {
        try cell.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sil, forKey: .sil)
        try container.encode(silEstimated, forKey: .silEstimated)
        try container.encode(effort, forKey: .effort)
        try container.encode(effortHearingLoss, forKey: .effortHearingLoss)
        try container.encode(intelligibility, forKey: .intelligibility)
        try container.encode(l10, forKey: .l10)
        try container.encode(l50, forKey: .l50)
        try container.encode(l90, forKey: .l90)
        try container.encode(lafmaxP90, forKey: .lafmaxP90)
        try container.encode(cMinusA, forKey: .cMinusA)
        try container.encode(speechShare, forKey: .speechShare)
        try container.encode(musicShare, forKey: .musicShare)
        try container.encode(classesModels, forKey: .classesModels)
        try container.encode(devices, forKey: .devices)
        try container.encode(days, forKey: .days)
        try container.encode(lastMeasured, forKey: .lastMeasured)
        try container.encode(estimated, forKey: .estimated)
        try container.encode(interval80, forKey: .interval80)
        try container.encode(effortRange, forKey: .effortRange)
    }
}

/// `GET /api/v2/venues?near=…&at=…` answer: venues near a place ranked by how easily people talk
/// there at a local weekday and hour.
public struct VenueRanking: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var latitude: Double
        public var longitude: Double
        public var timezone: String
        public var distanceM: Double
        /// The venue's cell at the asked weekday and hour, in its own time zone; all `null` without data.
        public var cell: ConversationCell

        public init(id: String, name: String, latitude: Double, longitude: Double, timezone: String, distanceM: Double, cell: ConversationCell) {
            self.id = id
            self.name = name
            self.latitude = latitude
            self.longitude = longitude
            self.timezone = timezone
            self.distanceM = distanceM
            self.cell = cell
        }

        enum CodingKeys: String, CodingKey {
            case id, name, latitude, longitude, timezone, cell
            case distanceM = "distance_m"
        }
    }

    public var weekday: Weekday
    public var hour: Int
    /// Whether the ranking follows `effort_hearing_loss` rather than `effort`.
    public var hearingLoss: Bool
    public var venues: [Entry]

    public init(weekday: Weekday, hour: Int, hearingLoss: Bool, venues: [Entry]) {
        self.weekday = weekday
        self.hour = hour
        self.hearingLoss = hearingLoss
        self.venues = venues
    }

    enum CodingKeys: String, CodingKey {
        case weekday, hour, venues
        case hearingLoss = "hearing_loss"
    }
}

/// `GET /api/v2/venues/{venue_id}/quiet-times` answer: the venue's hours with data, easiest
/// conversation first.
public struct QuietTimes: Codable, Sendable, Equatable {
    public struct Hour: Codable, Sendable, Equatable {
        public var weekday: Weekday
        public var hour: Int
        public var levelDB: Double
        public var label: String
        public var sil: Double
        public var silEstimated: Bool
        public var effort: VocalEffort
        public var effortHearingLoss: VocalEffort
        public var intelligibility: Intelligibility
        public var confidence: Confidence
        /// An hour nobody measured, estimated (ranked after measured hours of equal effort), with its 80 % interval.
        public var estimated: Bool
        public var interval80: [Double]?

        /// The effort for a listener with hearing loss, or with typical hearing.
        public func effort(hearingLoss: Bool) -> VocalEffort { hearingLoss ? effortHearingLoss : effort }

        public init(
            weekday: Weekday, hour: Int, levelDB: Double, label: String, sil: Double, silEstimated: Bool, effort: VocalEffort,
            effortHearingLoss: VocalEffort, intelligibility: Intelligibility, confidence: Confidence, estimated: Bool = false, interval80: [Double]? = nil
        ) {
            self.weekday = weekday
            self.hour = hour
            self.levelDB = levelDB
            self.label = label
            self.sil = sil
            self.silEstimated = silEstimated
            self.effort = effort
            self.effortHearingLoss = effortHearingLoss
            self.intelligibility = intelligibility
            self.confidence = confidence
            self.estimated = estimated
            self.interval80 = interval80
        }

        enum CodingKeys: String, CodingKey {
            case weekday, hour, label, sil, effort, intelligibility, confidence, estimated
            case interval80 = "interval_80"
            case levelDB = "level_db"
            case silEstimated = "sil_estimated"
            case effortHearingLoss = "effort_hearing_loss"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            weekday = try container.decode(Weekday.self, forKey: .weekday)
            hour = try container.decode(Int.self, forKey: .hour)
            levelDB = try container.decode(Double.self, forKey: .levelDB)
            label = try container.decode(String.self, forKey: .label)
            sil = try container.decode(Double.self, forKey: .sil)
            silEstimated = try container.decode(Bool.self, forKey: .silEstimated)
            effort = try container.decode(VocalEffort.self, forKey: .effort)
            effortHearingLoss = try container.decode(VocalEffort.self, forKey: .effortHearingLoss)
            intelligibility = try container.decode(Intelligibility.self, forKey: .intelligibility)
            confidence = try container.decode(Confidence.self, forKey: .confidence)
            // Absent from an older server's answer: it listed measured hours only.
            estimated = try container.decodeIfPresent(Bool.self, forKey: .estimated) ?? false
            interval80 = try container.decodeIfPresent([Double].self, forKey: .interval80)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(weekday, forKey: .weekday)
            try container.encode(hour, forKey: .hour)
            try container.encode(levelDB, forKey: .levelDB)
            try container.encode(label, forKey: .label)
            try container.encode(sil, forKey: .sil)
            try container.encode(silEstimated, forKey: .silEstimated)
            try container.encode(effort, forKey: .effort)
            try container.encode(effortHearingLoss, forKey: .effortHearingLoss)
            try container.encode(intelligibility, forKey: .intelligibility)
            try container.encode(confidence, forKey: .confidence)
            try container.encode(estimated, forKey: .estimated)
            try container.encode(interval80, forKey: .interval80)
        }
    }

    public var venueID: String
    public var unit: String
    /// The weekday asked for, or `nil` for the whole week.
    public var weekday: Weekday?
    public var hours: [Hour]

    public init(venueID: String, unit: String, weekday: Weekday?, hours: [Hour]) {
        self.venueID = venueID
        self.unit = unit
        self.weekday = weekday
        self.hours = hours
    }

    enum CodingKeys: String, CodingKey {
        case unit, weekday, hours
        case venueID = "venue_id"
    }
}
