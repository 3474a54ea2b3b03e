/// A place as people type it, `-33.87,151.21` (spaces allowed): in the API's `near`, on the public
/// search page and on the command line, read by this one rule.
public struct TypedPlace: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    /// `nil` when the text is not two numbers in degrees within range.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let latitude = parts[0], let longitude = parts[1], (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { return nil }
        (self.latitude, self.longitude) = (latitude, longitude)
    }

    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }

    /// What a bad value is told, wherever one is read. Which number comes first is said outright:
    /// map links and GeoJSON write longitude first, and a swapped pair is a common mistake.
    public static let rule = "LATITUDE,LONGITUDE in degrees, latitude (-90 to 90) first, like -33.87,151.21"
}
