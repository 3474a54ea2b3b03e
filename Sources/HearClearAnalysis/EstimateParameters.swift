/// The tunable numbers of `HourEstimates` (the `estimates` object of the server's config file).
/// The defaults are the ones `hearclear-server evaluate` was run with in docs/analysis.md.
public struct EstimateParameters: Codable, Sendable, Equatable {
    /// How much an hour next to a cell (same weekday, one hour off) says about it, against 1 for
    /// the cell itself; two hours off count this squared.
    public var neighbourHourWeight: Double
    /// How much the same hour on a similar weekday (Monday–Thursday among themselves, Friday and
    /// Saturday together) says about a cell.
    public var similarDayWeight: Double
    /// How many check-ins' worth of belief a kind's profile starts from in every cell: its
    /// measured check-ins outweigh it as they come. Below it, the profile of every venue speaks.
    public var profilePriorCheckIns: Double
    /// The least spread assumed for a check-in around its hour's level, and for a venue's hour
    /// around its kind's, dB: a handful of agreeing check-ins must not claim certainty.
    public var minimumSpreadDB: Double

    public static let standard = EstimateParameters(
        neighbourHourWeight: 0.5, similarDayWeight: 0.5, profilePriorCheckIns: 4, minimumSpreadDB: 1)

    public init(neighbourHourWeight: Double, similarDayWeight: Double, profilePriorCheckIns: Double, minimumSpreadDB: Double) {
        self.neighbourHourWeight = neighbourHourWeight
        self.similarDayWeight = similarDayWeight
        self.profilePriorCheckIns = profilePriorCheckIns
        self.minimumSpreadDB = minimumSpreadDB
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case neighbourHourWeight = "neighbour_hour_weight"
        case similarDayWeight = "similar_day_weight"
        case profilePriorCheckIns = "profile_prior_checkins"
        case minimumSpreadDB = "minimum_spread_db"
    }

    /// The keys a config file may give.
    public static let keys = CodingKeys.allCases.map(\.stringValue)

    /// Every key optional: what the file leaves out keeps its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let standard = Self.standard
        neighbourHourWeight = try container.decodeIfPresent(Double.self, forKey: .neighbourHourWeight) ?? standard.neighbourHourWeight
        similarDayWeight = try container.decodeIfPresent(Double.self, forKey: .similarDayWeight) ?? standard.similarDayWeight
        profilePriorCheckIns = try container.decodeIfPresent(Double.self, forKey: .profilePriorCheckIns) ?? standard.profilePriorCheckIns
        minimumSpreadDB = try container.decodeIfPresent(Double.self, forKey: .minimumSpreadDB) ?? standard.minimumSpreadDB
        for (value, key) in [(neighbourHourWeight, CodingKeys.neighbourHourWeight), (similarDayWeight, .similarDayWeight)] where !(0...1).contains(value) {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "must be between 0 and 1, not \(value)")
        }
        guard profilePriorCheckIns > 0 else {
            throw DecodingError.dataCorruptedError(forKey: .profilePriorCheckIns, in: container, debugDescription: "must be above 0")
        }
        guard minimumSpreadDB > 0 else {
            throw DecodingError.dataCorruptedError(forKey: .minimumSpreadDB, in: container, debugDescription: "must be above 0")
        }
    }
}
