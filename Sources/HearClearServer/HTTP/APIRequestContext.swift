import Hummingbird

/// The context of every request: who sent it (when authenticated) and how answers are encoded.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The device whose bearer token `DeviceAuthenticator` accepted.
    public var device: Device?
    /// The admin's session, once `AdminAuthenticator` let the request in.
    var adminSession: AdminSession?

    /// The client's IP address, for per-address limits; nil when there is no socket (router tests).
    let remoteAddress: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    public var responseEncoder: APIResponseEncoder { APIResponseEncoder() }

    func requireDevice() throws -> Device {
        guard let device else { throw APIError.unauthorized("missing bearer token") }
        return device
    }
}
