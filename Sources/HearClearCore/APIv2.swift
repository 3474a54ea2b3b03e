import Foundation

// The JSON documents of API v2 that differ from v1's. A check-in travels in columns: one array per
// measure, levels as integers in tenths of a dB, which gzip packs into a few bytes per second.

/// `POST /api/v2/checkins` body and `GET /api/v2/checkins/{id}` answer.
public struct CheckInV2: Codable, Sendable, Equatable {
    /// One array per measure, all of the same length, one entry per interval, in tenths of a dB
    /// (−412 is −41.2 dBFS). `avg` and `peak` always; the details all together or not at all.
    public struct Levels: Codable, Sendable, Equatable {
        /// Seconds since `started_at` of each interval; absent when they are 0, interval_s, 2·interval_s, …
        public var t: [Double]?
        public var avg: [Int]
        public var peak: [Int]
        public var fastMax: [Int]?
        public var cAvg: [Int]?
        public var oct500: [Int]?
        public var oct1000: [Int]?
        public var oct2000: [Int]?
        public var oct4000: [Int]?

        public init(
            t: [Double]? = nil, avg: [Int], peak: [Int], fastMax: [Int]? = nil, cAvg: [Int]? = nil, oct500: [Int]? = nil, oct1000: [Int]? = nil,
            oct2000: [Int]? = nil, oct4000: [Int]? = nil
        ) {
            (self.t, self.avg, self.peak, self.fastMax, self.cAvg) = (t, avg, peak, fastMax, cAvg)
            (self.oct500, self.oct1000, self.oct2000, self.oct4000) = (oct500, oct1000, oct2000, oct4000)
        }

        /// In the order a body writes its arrays (`CheckInV2.body`, `columns`): each beside the one
        /// it most resembles, from the peak through the octave bands, highest first, to the
        /// A-weighted mean, the C-weighted mean and the Fast maximum. gzip finds more of an array in
        /// its neighbour then: 2 % fewer bytes than the keys sorted on recordings with speech, the
        /// same on music (docs/api.md, "The order of the arrays").
        enum CodingKeys: String, CodingKey, CaseIterable {
            case t, peak
            case oct4000 = "oct_4000"
            case oct2000 = "oct_2000"
            case oct1000 = "oct_1000"
            case oct500 = "oct_500"
            case avg
            case cAvg = "c_avg"
            case fastMax = "fast_max"
        }

        /// The arrays present, by key, in the order `CodingKeys` declares.
        var columns: [(CodingKeys, any Encodable)] {
            CodingKeys.allCases.compactMap { key in
                switch key {
                case .t: t.map { (key, $0) }
                case .avg: (key, avg)
                case .peak: (key, peak)
                case .fastMax: fastMax.map { (key, $0) }
                case .cAvg: cAvg.map { (key, $0) }
                case .oct500: oct500.map { (key, $0) }
                case .oct1000: oct1000.map { (key, $0) }
                case .oct2000: oct2000.map { (key, $0) }
                case .oct4000: oct4000.map { (key, $0) }
                }
            }
        }

        /// The detail arrays by wire name, in `LevelDetails`' order (fast_max, c_avg, the bands).
        public var details: [(name: String, values: [Int]?)] {
            [("fast_max", fastMax), ("c_avg", cAvg), ("oct_500", oct500), ("oct_1000", oct1000), ("oct_2000", oct2000), ("oct_4000", oct4000)]
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            t = try container.doubles(forKey: .t)
            avg = try container.integers(forKey: .avg) ?? container.decode([Int].self, forKey: .avg)
            peak = try container.integers(forKey: .peak) ?? container.decode([Int].self, forKey: .peak)
            fastMax = try container.integers(forKey: .fastMax)
            cAvg = try container.integers(forKey: .cAvg)
            oct500 = try container.integers(forKey: .oct500)
            oct1000 = try container.integers(forKey: .oct1000)
            oct2000 = try container.integers(forKey: .oct2000)
            oct4000 = try container.integers(forKey: .oct4000)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            for (key, values) in columns {
                try container.encode(values, forKey: key)
            }
        }
    }

    /// How likely each interval holds speech and how likely music, in whole percent (0 … 100), one
    /// entry per interval like the levels: both or neither.
    public struct Classes: Codable, Sendable, Equatable {
        public var speech: [Int]
        public var music: [Int]

        public init(speech: [Int], music: [Int]) {
            self.speech = speech
            self.music = music
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            speech = try container.integers(forKey: .speech) ?? container.decode([Int].self, forKey: .speech)
            music = try container.integers(forKey: .music) ?? container.decode([Int].self, forKey: .music)
        }
    }

    public var id: UUID
    public var venueID: String
    public var startedAt: Date
    public var intervalS: Double
    public var weighting: Weighting
    public var calibrationDB: Double?
    public var levels: Levels
    public var classes: Classes?
    /// The version of the model that gave `classes` (`SoundClassifier.version`), when the client says.
    public var classesModel: Int?
    public var events: [LoudEvent]

    public init(
        id: UUID, venueID: String, startedAt: Date, intervalS: Double, weighting: Weighting, calibrationDB: Double?, levels: Levels,
        classes: Classes? = nil, classesModel: Int? = nil, events: [LoudEvent]
    ) {
        self.id = id
        self.venueID = venueID
        self.startedAt = startedAt
        self.intervalS = intervalS
        self.weighting = weighting
        self.calibrationDB = calibrationDB
        self.levels = levels
        self.classes = classes
        self.classesModel = classesModel
        self.events = events
    }

    enum CodingKeys: String, CodingKey {
        case levels, classes, events
        case classesModel = "classes_model"
    }

    /// What surrounds the columns: the header and the loud events. `scanned(_:)` decodes it from
    /// the body without its columns, so both readings of a body share it.
    struct Envelope: Decodable {
        var header: CheckInHeader
        var classesModel: Int?
        var events: [LoudEvent]

        enum CodingKeys: String, CodingKey {
            case events
            case classesModel = "classes_model"
        }

        init(from decoder: any Decoder) throws {
            header = try CheckInHeader(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            classesModel = try container.decodeIfPresent(Int.self, forKey: .classesModel)
            events = try container.decodeIfPresent([LoudEvent].self, forKey: .events) ?? []
        }
    }

    init(_ envelope: Envelope, levels: Levels, classes: Classes?) {
        let header = envelope.header
        self.init(
            id: header.id, venueID: header.venueID, startedAt: header.startedAt, intervalS: header.intervalS, weighting: header.weighting,
            calibrationDB: header.calibrationDB, levels: levels, classes: classes, classesModel: envelope.classesModel, events: envelope.events)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try Envelope(from: decoder), levels: try container.decode(Levels.self, forKey: .levels),
            classes: try container.decodeIfPresent(Classes.self, forKey: .classes))
    }

    public func encode(to encoder: any Encoder) throws {
        try encodeAllButLevels(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(levels, forKey: .levels)
    }

    /// The header, the classes and the events: what `body(_:)` leaves to a `JSONEncoder`.
    func encodeAllButLevels(to encoder: any Encoder) throws {
        try CheckInHeader(id: id, venueID: venueID, startedAt: startedAt, intervalS: intervalS, weighting: weighting, calibrationDB: calibrationDB)
            .encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(classes, forKey: .classes)
        try container.encodeIfPresent(classesModel, forKey: .classesModel)
        try container.encode(events, forKey: .events)
    }
}

extension CheckInV2 {
    /// A level in tenths of a dB, as the columns carry it.
    @inlinable
    public static func tenths(_ level: Double) -> Int { Int((level * 10).rounded()) }

    /// The columns of a check-in. Details and classes travel only when every interval has them.
    public init(_ checkIn: CheckIn) {
        let samples = checkIn.samples
        let regular = samples.indices.allSatisfy { samples[$0].t == Double($0) * checkIn.intervalS }
        let details = samples.allSatisfy { $0.details != nil } && !samples.isEmpty ? samples.compactMap(\.details) : nil
        let classes = samples.allSatisfy { $0.classes != nil } && !samples.isEmpty ? samples.compactMap(\.classes?.percent) : nil
        let tenths = Self.tenths
        self.init(
            id: checkIn.id, venueID: checkIn.venueID, startedAt: checkIn.startedAt, intervalS: checkIn.intervalS, weighting: checkIn.weighting,
            calibrationDB: checkIn.calibrationDB,
            levels: Levels(
                t: regular ? nil : samples.map(\.t), avg: samples.map { tenths($0.avg) }, peak: samples.map { tenths($0.peak) },
                fastMax: details?.map { tenths($0.fastMax) }, cAvg: details?.map { tenths($0.cAvg) },
                oct500: details?.map { tenths($0.octave(0)) }, oct1000: details?.map { tenths($0.octave(1)) },
                oct2000: details?.map { tenths($0.octave(2)) }, oct4000: details?.map { tenths($0.octave(3)) }),
            classes: classes.map { Classes(speech: $0.map(\.speech), music: $0.map(\.music)) },
            classesModel: classes == nil ? nil : checkIn.classesModel, events: checkIn.events)
    }

    /// The check-in these columns hold. Arrays of unequal lengths, or details only in part, are
    /// the server's to refuse first (`Validation`); here the shortest array bounds the intervals.
    public var checkIn: CheckIn {
        let count = min(levels.avg.count, levels.peak.count)
        let detailColumns = levels.details.compactMap(\.values)
        let hasDetails = detailColumns.count == levels.details.count && detailColumns.allSatisfy { $0.count >= count }
        let hasClasses = classes.map { $0.speech.count >= count && $0.music.count >= count } ?? false
        let samples = (0..<count).map { index in
            Sample(
                t: levels.t.flatMap { index < $0.count ? $0[index] : nil } ?? Double(index) * intervalS,
                avg: Double(levels.avg[index]) / 10, peak: Double(levels.peak[index]) / 10,
                details: hasDetails
                    ? LevelDetails(fastMax: Double(detailColumns[0][index]) / 10, cAvg: Double(detailColumns[1][index]) / 10) {
                        Double(detailColumns[2 + $0][index]) / 10
                    }
                    : nil,
                classes: hasClasses ? classes.map { SoundClasses(percent: $0.speech[index], $0.music[index]) } : nil)
        }
        return CheckIn(
            id: id, venueID: venueID, startedAt: startedAt, intervalS: intervalS, weighting: weighting, calibrationDB: calibrationDB, samples: samples,
            events: events, classesModel: hasClasses ? classesModel : nil)
    }
}

extension LevelDetails {
    /// The lowest `fast_max` an interval of `interval` seconds can have against its `avg`: a steady
    /// sound starting with the interval lifts the Fast detector (τ = 125 ms) from nothing to
    /// 1 − e^(−T/τ) of its level, −0.0015 dB for one second but −4.8 dB for a tenth of one.
    public static func lowestFastMax(avg: Double, interval: Double) -> Double {
        avg + 10 * log10(1 - exp(-interval / fastTimeConstant))
    }
}

extension KeyedDecodingContainer {
    /// Whole numbers, element by element through the container's own `decode(Int.self)`: decoded
    /// as `[Int]`, each element went through the generic `Decodable` path, which cost most of an
    /// upload's decoding (docs/profiling.md, "Ingest"). Nil when the key is absent or null, as
    /// `decodeIfPresent`.
    func integers(forKey key: Key) throws -> [Int]? {
        try elements(forKey: key) { try $0.decode(Int.self) }
    }

    /// As `integers(forKey:)`, for numbers with a fraction.
    func doubles(forKey key: Key) throws -> [Double]? {
        try elements(forKey: key) { try $0.decode(Double.self) }
    }

    private func elements<Element>(forKey key: Key, _ element: (inout any UnkeyedDecodingContainer) throws -> Element) throws -> [Element]? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        var array: any UnkeyedDecodingContainer = try nestedUnkeyedContainer(forKey: key)
        var elements: [Element] = []
        elements.reserveCapacity(array.count ?? 0)
        while !array.isAtEnd { elements.append(try element(&array)) }
        return elements
    }
}
