import Foundation

/// What both stores do around their SQL for a venue search.
extension VenueQuery {
    /// A LIKE pattern (with `ESCAPE '\'`) matching names that contain `text` literally, so that
    /// `%` and `_` typed by a person are no wildcards. Nil when there is nothing to match.
    static func likePattern(containing text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        var escaped = "%"
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "%"
    }

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
