import Hummingbird

/// Gives every request an id, in its log lines and as `X-Request-Id` on the answer: the caller's
/// own when it sends a well-formed one (a proxy's, to follow a request across services), else the
/// one Hummingbird made.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let id: String
        if let incoming = request.headers[.init("X-Request-Id")!], Self.isWellFormed(incoming) {
            id = incoming
            context.logger[metadataKey: HearClearLogHandler.requestIDKey] = .string(incoming)
        } else {
            // Hummingbird's own id, read without `context.id`, which traps when a logger keeps no metadata.
            id = context.logger[metadataKey: HearClearLogHandler.requestIDKey]?.description ?? RequestID().description
        }
        var response = try await next(request, context)
        response.headers[.init("X-Request-Id")!] = id
        return response
    }

    /// 1 to 128 of the characters A-Z a-z 0-9 . _ : -, so it cannot forge log lines or headers.
    static func isWellFormed(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || [UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-")].contains(byte)
        }
    }
}
