import HearClearCore

/// "Add a venue" (`/add-venue`): a place the search did not find, added from a phone's browser as
/// `hearclear venue add` adds one, then measured. The page is the form; Public/add-venue.js offers
/// venues of the name near the place first, registers the browser's device if it has none, adds the
/// venue (`PUT /api/v1/venues/{id}`) in the phone's time zone and opens its measuring page.
struct AddVenuePage {
    let title = "Add a venue"
    /// What the search was given, to start from.
    let name: String
    let near: String
    let kinds = VenueKind.allCases.map(\.rawValue)
    /// How near a venue of the same name is offered instead of adding another, metres.
    let sameRadiusM = AddVenuePage.sameRadiusM

    static let sameRadiusM = 200
}
