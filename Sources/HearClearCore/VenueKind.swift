/// What sort of place a venue is. Estimates for the hours nobody measured lean on venues of the
/// same kind (docs/analysis.md), so a kind is worth setting; a venue without one counts as `other`.
public enum VenueKind: String, WireEnum, Sendable {
    case bar, pub, restaurant, cafe, club, other
}
