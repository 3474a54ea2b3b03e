import Crypto
import Foundation
import Hummingbird

/// What the public answers and pages say to caches (browsers, nginx, a CDN): anyone may keep them
/// for a minute, then ask again with the ETag and get 304 Not Modified, no body, while nothing
/// changed. A minute is how stale a venue's page may be after a check-in lands (docs/scale.md).
enum PublicCaching {
    static let cacheControl = "public, max-age=60"

    /// A weak validator of a response body: equal bodies, equal tags. Weak, because the same
    /// answer travels gzipped or not (and nginx may compress a page again).
    static func entityTag(of body: some DataProtocol) -> String {
        "W/\"\(SHA256.hash(data: body).prefix(12).map { String(format: "%02x", $0) }.joined())\""
    }

    /// `response` with the cache headers, or 304 when the request already holds this body
    /// (Hummingbird's `ifNoneMatch` compares the tags).
    static func response(
        eTag: String, request: Request, context: some RequestContext, headers: HTTPFields = [:], _ response: () throws -> Response
    ) async throws -> Response {
        var conditional = headers
        conditional[.cacheControl] = cacheControl
        return try await request.ifNoneMatch(headers: conditional, eTag: eTag, context: context) { try response() }
    }
}
