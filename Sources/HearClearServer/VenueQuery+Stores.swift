import Foundation
import HearClearCore

/// What both stores do around their SQL for a venue search.
extension VenueQuery {
    /// A LIKE pattern (with `ESCAPE '\'`) matching text that contains `text` literally, so that
    /// `%` and `_` typed by a person are no wildcards. Nil when there is nothing to match.
    ///
    /// The pattern is lower-cased by Swift's Unicode rules, and the stores compare it with the name
    /// lower-cased by the same rules (`nameFolded`), so "CAFÉ" finds "Café Éclair": SQLite's LIKE
    /// folds ASCII letters only, and PostgreSQL's ILIKE follows the database's locale.
    static func likePattern(containing text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        var escaped = "%"
        for character in text.lowercased() {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "%"
    }

    /// One LIKE pattern for each word of `text`, all of which a name must match: a search box is
    /// expected to find "The Blue Moon Bar" from "moon bar" or "bar moon", as from "blue moon".
    /// Empty when there is nothing to match.
    static func likePatterns(eachWordOf text: String?) -> [String] {
        (text ?? "").split(whereSeparator: \.isWhitespace).compactMap { likePattern(containing: String($0)) }
    }

    /// A venue's name lower-cased as `likePattern` lower-cases what is searched for, in each store's
    /// SQL: GRDB's `swiftLowercaseString` is Swift's `lowercased()`, and PostgreSQL's `lower` under
    /// the ICU root collation uses Unicode's case mapping whatever the database's locale.
    static let sqliteNameFolded = "swiftLowercaseString(v.name)"
    static let postgresNameFolded = #"lower(v.name COLLATE "und-x-icu")"#

    /// The candidates a store found inside the bounding box of `near`, cut to the radius, with their
    /// distances, nearest first (by id on a tie), at most `limit`.
    func nearest(_ candidates: [VenueSummary], to near: Coordinate) -> [VenueSummary] {
        Array(
            candidates.compactMap { summary -> VenueSummary? in
                let distance = near.distance(to: Coordinate(latitude: summary.venue.latitude, longitude: summary.venue.longitude))
                guard distance <= radiusM else { return nil }
                var summary = summary
                summary.distanceM = distance
                return summary
            }
            .sorted { ($0.distanceM ?? 0, $0.id) < ($1.distanceM ?? 0, $1.id) }
            .prefix(limit))
    }
}
