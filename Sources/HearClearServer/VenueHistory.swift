import Foundation
import HearClearCore

/// Who changed a venue, as its history records it.
public enum VenueActor: Sendable, Equatable {
    case device(UUID)
    case admin

    var recorded: String {
        switch self {
        case .device(let id): "device:\(id.wireString)"
        case .admin: "admin"
        }
    }

    /// What the history says of a device that deleted itself.
    static let deletedDevice = "deleted device"
}

/// A venue as its history records it, before or after a change.
public struct VenueSnapshot: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var timezone: String
    public var kind: VenueKind?
    /// The owner device's id, or `deleted device`.
    public var owner: String?

    init(id: String, venue: VenueUpsert, owner: UUID?) {
        self.id = id
        name = venue.name
        latitude = venue.latitude
        longitude = venue.longitude
        timezone = venue.timezone
        kind = venue.kind
        self.owner = owner?.wireString
    }

    init(_ record: VenueRecord) {
        self.init(id: record.id, venue: record.upsert, owner: record.ownerDeviceId)
    }

    var json: String {
        // Encoding plain strings and numbers cannot fail.
        return (try? String(decoding: APIResponseEncoder.jsonEncoder().encode(self), as: UTF8.self)) ?? "{}"
    }
}

/// What became of an operator's change to a venue.
public enum VenueAdminOutcome: Sendable, Equatable {
    case done, noSuchVenue, noSuchDevice, noSuchTarget, sameVenue
}
