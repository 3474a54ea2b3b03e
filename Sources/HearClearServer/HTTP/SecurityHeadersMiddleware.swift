import Foundation
import Hummingbird
import HTTPTypes

/// What every answer carries whatever route made it, and what no path may hold.
///
/// - `X-Content-Type-Options: nosniff` on every answer, the static files' among them, so that a
///   browser never runs a file as another type than the one it is served as.
/// - A path with a control character after percent-decoding is refused before any route sees it:
///   the file system ends a name at NUL, so `/public/favicon.svg%00.html` served the SVG as HTML.
/// - Behind a trusted proxy that says the client came over HTTPS (`X-Forwarded-Proto: https`), the
///   context records it (the admin cookie is then `Secure`) and answers carry HSTS. From any other
///   peer the header is ignored: a client could claim anything.
/// - The measuring page's service worker (`Public/measure-worker.js`, under `/public/`) may answer
///   for the pages under `/venues/`, where the measuring pages are: a browser gives a worker only the
///   folder of its script unless the script's answer allows more. No other answer allows it. (Here,
///   not in a middleware of its own: every request would pass through one more for one file.)
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let trustedProxies: Set<String>

    static let noSniff = HTTPField.Name("X-Content-Type-Options")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let strictTransportSecurity = HTTPField.Name("Strict-Transport-Security")!
    static let serviceWorkerAllowed = HTTPField.Name("Service-Worker-Allowed")!
    static let measuringWorker = (script: "/public/measure-worker.js", scope: "/venues/")

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if !trustedProxies.isEmpty { context.overHTTPS = overHTTPS(request, peer: context.remoteAddress) }
        var response: Response
        do {
            guard Self.isClean(request.uri.path) else {
                throw APIError.notFound("no such resource: the path holds a control character or an invalid percent-encoding")
            }
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[Self.noSniff] = "nosniff"
        if context.overHTTPS { response.headers[Self.strictTransportSecurity] = "max-age=31536000" }
        if request.uri.path == Self.measuringWorker.script { response.headers[Self.serviceWorkerAllowed] = Self.measuringWorker.scope }
        return response
    }

    /// Whether a path holds no control character, percent-encoded or not. It runs on every request:
    /// the bytes are scanned, and only a path with a `%` is decoded.
    static func isClean(_ path: String) -> Bool {
        var escaped = false
        for byte in path.utf8 {
            if byte < 0x20 || byte == 0x7F { return false }
            if byte == UInt8(ascii: "%") { escaped = true }
        }
        guard escaped else { return true }
        guard let decoded = path.removingPercentEncoding else { return false }
        return !decoded.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Whether a trusted proxy received the request over HTTPS: its own `X-Forwarded-Proto` is the
    /// last value (nginx's `proxy_set_header` replaces the client's).
    func overHTTPS(_ request: Request, peer: String?) -> Bool {
        guard let peer, trustedProxies.contains(peer) else { return false }
        let values = request.headers[values: Self.forwardedProto].flatMap { $0.split(separator: ",") }
        return values.last?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }
}
