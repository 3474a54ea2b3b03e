import Foundation
import HearClearCore

public struct Coordinate: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// A place as people type it (`TypedPlace`); `nil` when it is not one.
    public init?(text: some StringProtocol) {
        guard let place = TypedPlace(text) else { return nil }
        self.init(latitude: place.latitude, longitude: place.longitude)
    }

    static let earthRadiusM = 6_371_008.8
    static let metresPerDegreeLatitude = 111_195.0

    /// Great-circle distance (haversine), metres.
    func distance(to other: Coordinate) -> Double {
        let φ1 = latitude * .pi / 180, φ2 = other.latitude * .pi / 180
        let dφ = φ2 - φ1
        let dλ = (other.longitude - longitude) * .pi / 180
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * Self.earthRadiusM * asin(min(1, sqrt(a)))
    }

    /// A latitude/longitude box holding every point within `radius` metres, for an index to narrow
    /// the search before exact distances. Longitude is left open near the poles and across ±180°.
    func boundingBox(radius: Double) -> (latitude: ClosedRange<Double>, longitude: ClosedRange<Double>?) {
        // 1% margin: the box only narrows the search, exact distances decide.
        let dLatitude = radius * 1.01 / Self.metresPerDegreeLatitude
        let latitudes = max(-90, latitude - dLatitude)...min(90, latitude + dLatitude)
        let cosine = cos(latitude * .pi / 180)
        guard latitudes.lowerBound > -89, latitudes.upperBound < 89, cosine > 0.01 else { return (latitudes, nil) }
        let dLongitude = dLatitude / cosine
        guard longitude - dLongitude >= -180, longitude + dLongitude <= 180 else { return (latitudes, nil) }
        return (latitudes, (longitude - dLongitude)...(longitude + dLongitude))
    }
}
