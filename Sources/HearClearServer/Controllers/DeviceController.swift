import Foundation
import HearClearCore
import Hummingbird

/// `/api/v1/devices`: a sampler registers and receives its bearer token.
struct DeviceController {
    let repository: any Repository
    let settings: ServerSettings
    /// Per-device and per-address write limits; nil when they are off.
    let limiter: RateLimiter?

    func addRoutes(to group: RouterGroup<APIRequestContext>) {
        group.methodNotAllowed("", allowing: [.post])
        group.methodNotAllowed("me", allowing: [.delete])
        if let limiter { group.add(middleware: AddressRateLimitMiddleware(limiter: limiter, trustedProxies: settings.trustedProxies)) }
        group.post(use: register)
        group.group("me").add(middleware: DeviceAuthenticator(repository: repository, limiter: limiter, admitsBanned: true))
            .group(context: DeviceRequestContext.self).delete(use: forget)
    }

    /// The device takes its data back: it, its check-ins and their samples are deleted, and its token stops working.
    @Sendable func forget(_ request: Request, context: DeviceRequestContext) async throws -> HTTPResponse.Status {
        try request.refuseQueryParameters()
        guard try await repository.deleteDevice(context.device.id) else { throw APIError.unauthorized("unknown device token") }
        return .noContent
    }

    @Sendable func register(_ request: Request, context: APIRequestContext) async throws -> EditedResponse<DeviceCredentials> {
        try request.refuseQueryParameters()
        let registration = try Validation.registration(try await request.decodeJSON(DeviceRegistration.self, limit: settings.maxBodyBytes, timeout: settings.bodyTimeout))
        let token = DeviceToken.generate()
        let id = try await repository.registerDevice(registration, tokenHash: DeviceToken.hash(token), at: Date())
        return EditedResponse(status: .created, response: DeviceCredentials(deviceID: id, token: token))
    }
}
