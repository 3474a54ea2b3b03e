import Hummingbird

/// The context of every request: who sent it (once authenticated) and how answers are encoded.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The device whose bearer token `DeviceAuthenticator` accepted; routes that need it are in a
    /// `DeviceRequestContext` group, where it is not optional.
    var device: Device?
    /// The admin's session, once `AdminAuthenticator` let the request in; the admin routes read it
    /// from their `AdminRequestContext`.
    var adminSession: AdminSession?

    /// The client's IP address, for per-address limits; nil when there is no socket (router tests).
    let remoteAddress: String?
    /// Whether a trusted proxy received the request over HTTPS (`SecurityHeadersMiddleware`).
    var overHTTPS = false

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    public var responseEncoder: APIResponseEncoder { APIResponseEncoder() }
}

/// The context of a route that acts for a device: made only once `DeviceAuthenticator` has
/// accepted one, so handlers need no check of their own.
struct DeviceRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let device: Device

    init(context: APIRequestContext) throws {
        guard let device = context.device else { throw APIError.unauthorized("missing Authorization: Bearer <token>") }
        self.coreContext = context.coreContext
        self.device = device
    }

    var responseEncoder: APIResponseEncoder { APIResponseEncoder() }
}

/// The context of an admin page: made only once `AdminAuthenticator` has let the request in.
struct AdminRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let session: AdminSession

    init(context: APIRequestContext) throws {
        guard let session = context.adminSession else { throw HTTPError(.unauthorized) }
        self.coreContext = context.coreContext
        self.session = session
    }

    var responseEncoder: APIResponseEncoder { APIResponseEncoder() }
}
