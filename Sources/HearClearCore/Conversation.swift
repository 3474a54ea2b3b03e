/// How hard a talker must speak to be understood, the answer of ISO 9921's SIL method
/// (docs/analysis.md): the least vocal effort that reaches at least "fair" intelligibility, or
/// `notPossible` when even a very loud voice does not.
public enum VocalEffort: String, Codable, Sendable, CaseIterable, Comparable {
    case relaxed, normal, raised, loud
    case veryLoud = "very_loud"
    case notPossible = "not_possible"

    /// The A-weighted speech level at 1 m in front of the talker, dB (ISO 9921:2003, Annex E);
    /// `nil` for `notPossible`.
    public var speechLevelAt1mDB: Double? {
        switch self {
        case .relaxed: 54
        case .normal: 60
        case .raised: 66
        case .loud: 72
        case .veryLoud: 78
        case .notPossible: nil
        }
    }

    /// Its mark in a grid, the same in the terminal and on the pages: 1 relaxed … 5 very loud, X not possible.
    public var mark: String {
        switch self {
        case .relaxed: "1"
        case .normal: "2"
        case .raised: "3"
        case .loud: "4"
        case .veryLoud: "5"
        case .notPossible: "X"
        }
    }

    /// In words, for pages and the terminal.
    public var words: String {
        switch self {
        case .relaxed: "relaxed voice"
        case .normal: "normal voice"
        case .raised: "raised voice"
        case .loud: "loud voice"
        case .veryLoud: "very loud voice"
        case .notPossible: "not possible"
        }
    }

    public static func < (a: VocalEffort, b: VocalEffort) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// ISO 9921's intelligibility ratings, from the speech level at the listener minus the SIL.
public enum Intelligibility: String, Codable, Sendable, CaseIterable {
    case excellent, good, fair, poor, bad

    /// Excellent above 21 dB, good from 15, fair from 10, poor from 3, bad below 3 (ISO 9921:2003, Annex E).
    public init(marginDB: Double) {
        switch marginDB {
        case let m where m > 21: self = .excellent
        case 15...: self = .good
        case 10...: self = .fair
        case 3...: self = .poor
        default: self = .bad
        }
    }

    /// The least margin that still rates `fair`: what "understood" means in the effort answer.
    public static let fairMarginDB = 10.0
}
