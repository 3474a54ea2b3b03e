import Foundation
import HearClearCore

extension Coordinate {
    /// A place as people type it (`TypedPlace`); `nil` when it is not one.
    init?(text: some StringProtocol) {
        guard let place = TypedPlace(text) else { return nil }
        self.init(latitude: place.latitude, longitude: place.longitude)
    }

    static let metresPerDegreeLatitude = 111_195.0

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
