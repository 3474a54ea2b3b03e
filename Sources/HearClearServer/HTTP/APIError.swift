import Hummingbird

/// Error answers, all JSON `{"error": {"message": "..."}}` (HTTPError renders that shape).
enum APIError {
    static func badRequest(_ message: String) -> HTTPError { HTTPError(.badRequest, message: message) }
    static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"hearclear\""], message: message)
    }
    static func forbidden(_ message: String) -> HTTPError { HTTPError(.forbidden, message: message) }
    static func notFound(_ message: String) -> HTTPError { HTTPError(.notFound, message: message) }
    static func conflict(_ message: String) -> HTTPError { HTTPError(.conflict, message: message) }
    static func tooLarge(limit: Int) -> HTTPError {
        HTTPError(.contentTooLarge, message: "request body is larger than \(limit) bytes (after decompression)")
    }
    static func unsupportedMediaType(_ message: String) -> HTTPError { HTTPError(.unsupportedMediaType, message: message) }
    static func unprocessable(_ message: String) -> HTTPError { HTTPError(.unprocessableContent, message: message) }
}
