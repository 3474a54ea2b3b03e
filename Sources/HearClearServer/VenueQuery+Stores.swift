import Foundation
import HearClearCore

/// What both stores do around their SQL for a venue search.
extension VenueQuery {
    /// A name as a search compares it: without case or accents, so that "cafe muller" finds "Café
    /// Müller" and "CAFÉ" finds "Cafe", and with one apostrophe and one dash, as a phone's keyboard
    /// types "Joe’s" for "Joe's". Folded here, by Swift's Unicode rules, and stored beside the name
    /// (`venue.name_folded`) by both stores: SQLite's LIKE folds ASCII letters only, PostgreSQL's
    /// follows the database's locale, and neither drops accents. A change here needs a migration
    /// that folds the stored names again.
    static func folded(_ name: String) -> String {
        String(
            name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).map { character in
                apostrophes.contains(character) ? "'" : dashes.contains(character) ? "-" : character
            })
    }

    /// `verify`'s line for a venue whose stored folding is not its name's (a name changed outside
    /// the server, in the sqlite3 shell or psql): nil where they agree. `rebuild` folds it again.
    static func difference(venue: String, name: String, storedFolded: String) -> String? {
        let expected = folded(name)
        return storedFolded == expected ? nil : "venue \(venue): searched as “\(storedFolded)”, where its name “\(name)” folds to “\(expected)”"
    }

    /// Typographers' apostrophes and the marks typed for them; and the dashes beside the hyphen-minus.
    private static let apostrophes: Set<Character> = ["\u{2019}", "\u{2018}", "\u{02BC}", "\u{2032}", "`", "\u{00B4}"]
    private static let dashes: Set<Character> = ["\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2212}"]

    /// The column a search compares its patterns with, in both stores' SQL.
    static let nameFoldedColumn = "v.name_folded"

    /// A LIKE pattern (with `ESCAPE '\'`) matching text that contains `text` literally, so that
    /// `%` and `_` typed by a person are no wildcards. Nil when there is nothing to match. The
    /// pattern is folded as names are (`folded`).
    static func likePattern(containing text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        var escaped = "%"
        for character in folded(text) {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "%"
    }

    /// One LIKE pattern for each word of `text`, all of which a name must match: a search box is
    /// expected to find "The Blue Moon Bar" from "moon bar" or "bar moon", as from "blue moon".
    /// "and", "&" and "+" are left out beside other words, since a name said with one is written
    /// with another ("crown and anchor" finds "The Crown & Anchor"); alone, they are what is looked
    /// for. Empty when there is nothing to match.
    static func likePatterns(eachWordOf text: String?) -> [String] {
        let words = (text ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        let named = words.filter { !joiningWords.contains(folded($0)) }
        return (named.isEmpty ? words : named).compactMap { likePattern(containing: $0) }
    }

    /// The ways a name joins two of its parts.
    private static let joiningWords: Set<String> = ["and", "&", "+"]

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
