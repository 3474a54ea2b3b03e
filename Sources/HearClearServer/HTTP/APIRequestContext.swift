import Hummingbird

/// The context of every request: who sent it (when authenticated) and how answers are encoded.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The device whose bearer token `DeviceAuthenticator` accepted.
    public var device: Device?
    /// The admin's session, once `AdminAuthenticator` let the request in.
    var adminSession: AdminSession?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    public var responseEncoder: APIResponseEncoder { APIResponseEncoder() }

    func requireDevice() throws -> Device {
        guard let device else { throw APIError.unauthorized("missing bearer token") }
        return device
    }
}
