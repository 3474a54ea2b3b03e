import HearClearClient
import HearClearCore

/// Where `quiet --near`, `venue near` and `venue find --near` look: a place typed as coordinates,
/// or a venue's id — a person at a venue knows its id from `venue find`, not its coordinates, and
/// asks for quieter places near it.
enum NearPlace {
    case typed(TypedPlace)
    case venue(id: String)

    /// `nil` when the text is neither coordinates nor a venue's id. The two cannot be confused: an
    /// id holds no comma.
    init?(_ text: String) {
        if let place = TypedPlace(text) {
            self = .typed(place)
        } else if VenueID.isValid(text) {
            self = .venue(id: text)
        } else {
            return nil
        }
    }

    static let rule = "\(TypedPlace.rule), or a venue's id"

    /// The venue asked near, which a list of what is near it holds too.
    var venueID: String? {
        if case .venue(let id) = self { id } else { nil }
    }

    /// The place's coordinates; a venue's are asked of the server.
    func coordinate(_ client: APIClient) async throws -> Coordinate {
        switch self {
        case .typed(let place):
            return place.coordinate
        case .venue(let id):
            do {
                let venue = try await client.venue(id: id)
                return Coordinate(latitude: venue.latitude, longitude: venue.longitude)
            } catch APIClient.Failure.server(404, _, _) {
                throw CommandFailure("no venue has the id “\(id)”: --near takes \(Self.rule)")
            }
        }
    }
}
