import Foundation
import Hummingbird
import Logging

/// Makes every failure an error answer with the right status: JSON, except for a browser asking
/// for a page outside the API, which gets one (the pages' own routes make theirs). Unexpected
/// errors are logged and answered 500 without details.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let pages: HTMLErrorMiddleware<APIRequestContext>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as RequestCutOff {
            throw error
        } catch var error as HTTPError {
            if error.body == nil {
                error.body = error.status == .notFound ? "no such resource: \(request.uri.path)" : error.status.reasonPhrase
            }
            if Self.wantsPage(request) {
                let message = error.status == .notFound ? "There is no page at \(request.uri.path). Find a venue from the search page." : error.body ?? ""
                return try pages.page(status: error.status, message: message, headers: error.headers)
            }
            return try error.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        } catch {
            context.logger.error("unexpected error: \(String(reflecting: error))")
            return try HTTPError(.internalServerError, message: "internal error").response(from: request, context: context)
        }
    }
}

extension ErrorMiddleware {
    /// A browser's request for a page: outside the API, accepting HTML.
    static func wantsPage(_ request: Request) -> Bool {
        !request.uri.path.hasPrefix("/api/") && request.headers[values: .accept].contains { $0.lowercased().contains("text/html") }
    }
}

/// Accepts `Authorization: Bearer <token>` from a registered device that is not banned, within its
/// write rate when there is a limit.
struct DeviceAuthenticator: RouterMiddleware {
    typealias Context = APIRequestContext
    let repository: any Repository
    let limiter: RateLimiter?
    /// A banned device may still delete itself and its data.
    var admitsBanned = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authorization = request.headers[.authorization] else {
            throw APIError.unauthorized("missing Authorization: Bearer <token>; register a device with POST /api/v1/devices")
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError.unauthorized("the Authorization header must be Bearer <token>")
        }
        guard let device = try await repository.device(tokenHash: DeviceToken.hash(String(parts[1]))) else {
            throw APIError.unauthorized("unknown device token")
        }
        guard !device.banned || admitsBanned else { throw APIError.forbidden("this device is banned") }
        if let limiter, let wait = try await limiter.buckets.take("device:\(device.id.wireString)", perMinute: limiter.perMinute) {
            ServerMetrics.rateLimitedDevice.increment()
            throw RateLimiter.tooManyRequests(retryAfter: wait, who: "device")
        }
        var context = context
        context.device = device
        return try await next(request, context)
    }
}

extension RouterMethods {
    /// Answers 405 with `Allow` for the methods a known path does not serve (instead of 404).
    @discardableResult
    func methodNotAllowed(_ path: RouterPath, allowing allowed: [HTTPRequest.Method]) -> Self {
        let allowedWithHead = allowed.contains(.get) ? allowed + [.head] : allowed
        let allow = allowedWithHead.map(\.rawValue).joined(separator: ", ")
        let all: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .patch, .options, .trace, .connect]
        for method in all where !allowedWithHead.contains(method) {
            on(path, method: method) { _, _ -> Response in
                throw HTTPError(.methodNotAllowed, headers: [.allow: allow], message: "\(method.rawValue) is not allowed here; allowed: \(allow)")
            }
        }
        return self
    }
}
