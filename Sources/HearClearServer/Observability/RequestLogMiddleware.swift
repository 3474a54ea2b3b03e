import HTTPTypes
import Hummingbird

/// Gives every request an id, logs one line for it and counts it: method, path, status and time
/// taken, with the id, which the answer also carries as `X-Request-Id`; and in the metrics, requests
/// by route template and status with their durations. The id is the caller's own when it
/// sends a well-formed one (a proxy's, to follow a request across services), else the one
/// Hummingbird made. Never headers nor bodies, so tokens, passwords and measurements stay out of logs.
/// (One middleware rather than three: each layer is an async call on every request.)
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    static let header = HTTPField.Name("X-Request-Id")!
    let metrics = RequestMetrics()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var context = context
        let id: String
        if let incoming = request.headers[Self.header], Self.isWellFormed(incoming) {
            id = incoming
            context.logger[metadataKey: HearClearLogHandler.requestIDKey] = .string(incoming)
        } else {
            // Hummingbird's own id, read without `context.id`, which traps when a logger keeps no metadata.
            id = context.logger[metadataKey: HearClearLogHandler.requestIDKey]?.description ?? RequestID().description
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch is RequestCutOff {
            // Counted by `ConnectionGuard` (hearclear_requests_cut_off_total), not as a status; the
            // answer goes to a closed connection.
            context.logger.info("\(request.method.rawValue) \(request.uri.path) cut off before its body was complete \(Self.milliseconds(ContinuousClock.now - start))")
            return Response(status: .badRequest, headers: [.connection: "close"])
        }
        response.headers[Self.header] = id
        let elapsed = ContinuousClock.now - start
        context.logger.info("\(request.method.rawValue) \(request.uri.path) \(response.status.code) \(Self.milliseconds(elapsed))")
        metrics.record(route: context.endpointPath ?? "NotFound", method: request.method, status: response.status.code, elapsed: elapsed)
        return response
    }

    /// Tenths of a millisecond, without String(format:), which cost more than the rest of the line.
    static func milliseconds(_ elapsed: Duration) -> String {
        let tenths = Int(elapsed.inSeconds * 10_000)
        return "\(tenths / 10).\(tenths % 10)ms"
    }

    /// 1 to 128 of the characters A-Z a-z 0-9 . _ : -, so it cannot forge log lines or headers.
    static func isWellFormed(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }
}
