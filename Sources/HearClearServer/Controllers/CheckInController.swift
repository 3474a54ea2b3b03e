import Crypto
import Foundation
import HearClearCore
import Hummingbird

/// `/api/v1/checkins`: uploads of measured sessions.
struct CheckInController {
    let repository: any Repository
    let settings: ServerSettings
    /// Per-device and per-address write limits; nil when they are off.
    let limiter: RateLimiter?
    let uploads: UploadGate

    func addRoutes(to group: RouterGroup<APIRequestContext>) {
        group.methodNotAllowed("", allowing: [.post])
        if let limiter { group.add(middleware: AddressRateLimitMiddleware(limiter: limiter)) }
        group.add(middleware: DeviceAuthenticator(repository: repository, limiter: limiter))
            .post { request, context in try await uploads.run { try await upload(request, context: context) } }
    }

    @Sendable func upload(_ request: Request, context: APIRequestContext) async throws -> EditedResponse<CheckInReceipt> {
        let device = try context.requireDevice()
        let checkIn = try await request.decodeJSON(CheckIn.self, limit: settings.maxBodyBytes, timeout: settings.bodyTimeout)
        let now = Date()
        try Validation.checkIn(checkIn, now: now)
        let outcome = try await repository.storeCheckIn(
            checkIn, contentHash: Self.contentHash(checkIn), by: device.id, settings: settings, at: now)
        switch outcome {
        case .created(let stored):
            return EditedResponse(status: .created, response: receipt(stored))
        case .replayed(let stored):
            return EditedResponse(status: .ok, response: receipt(stored))
        case .conflict:
            throw APIError.conflict("check-in \(checkIn.id.wireString) was already uploaded with different content")
        case .unknownVenue:
            throw APIError.unprocessable("venue \(checkIn.venueID) does not exist: create it with PUT /api/v1/venues/\(checkIn.venueID)")
        }
    }

    /// Identifies the content of an upload whatever its formatting or key order, so a retry is recognised.
    static func contentHash(_ checkIn: CheckIn) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Data(SHA256.hash(data: try encoder.encode(checkIn)))
    }

    private func receipt(_ stored: StoredCheckIn) -> CheckInReceipt {
        CheckInReceipt(
            id: stored.id, venueID: stored.venueID, samples: stored.samples, droppedSamples: stored.droppedSamples,
            levelDB: stored.levelDB.map(Level.rounded), label: stored.levelDB.map(settings.scale.label(for:)),
            status: stored.status)
    }
}
