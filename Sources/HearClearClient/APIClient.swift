import CompressNIO
import Foundation
import HearClearCore
import NIOCore
import TransportWire

/// The HearClear API over HTTP (URLSession, libcurl on Linux, loaded when first needed:
/// `HTTPTransport`): v1, and v2 for check-ins. Redirects are never followed: the token goes to the
/// configured server and nowhere else, whatever a captive portal or a proxy answers.
public struct APIClient: Sendable {
    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// The HearClear server answered with one of its own error documents, or something in front
        /// of it with a 5xx (a proxy's 502 while the server restarts).
        case server(status: Int, message: String, retryAfter: Double?)
        /// The server could not be reached or the answer was cut off.
        case network(String)
        /// Something other than the HearClear API answered: a redirect, a portal's or proxy's page
        /// (a 3xx or 4xx without the server's error document, or a 2xx that is not the document asked for).
        case foreign(String)

        public var description: String {
            switch self {
            case .server(let status, let message, _): "server answered \(status): \(message)"
            case .network(let reason): "cannot reach the server: \(reason)"
            case .foreign(let reason): reason
            }
        }

        /// The server refused the check-in itself, for good: its content (400, 409, 413, 415, 422).
        /// Anything else leaves it waiting: the device (401, 403), the network, a foreign answer.
        public var rejectsCheckIn: Bool {
            guard case .server(let status, _, _) = self else { return false }
            return [400, 409, 413, 415, 422].contains(status)
        }

        /// The server holds another check-in under this one's id (409).
        public var isConflict: Bool {
            guard case .server(409, _, _) = self else { return false }
            return true
        }

        /// How long the server asked to wait before trying again (408, 429, 503): nothing was stored.
        /// A 503 without `Retry-After` (a maintenance page) names no time: the check-ins wait.
        public var retryAfter: Double? {
            guard case .server(let status, _, let seconds) = self, [408, 429, 503].contains(status) else { return nil }
            return status == 503 ? seconds : seconds ?? 1
        }

        /// A server error (5xx other than 503, which says when to come back): possibly this request's alone.
        public var isServerError: Bool {
            guard case .server(let status, _, _) = self else { return false }
            return status >= 500 && status != 503
        }

        /// Worth trying again at once, after a short pause: the network, or a server error.
        public var isTransient: Bool {
            if case .network = self { return true }
            return isServerError
        }
    }

    public let server: URL
    public let token: String?
    /// Where the servers that lack API v2 are remembered; nil: nowhere.
    let versions: ServerVersions?
    let timeout: TimeInterval

    public init(server: URL, token: String? = nil, timeout: TimeInterval = 30, versions: ServerVersions? = nil) {
        self.server = server
        self.token = token
        self.versions = versions
        self.timeout = timeout
    }

    public func register(_ registration: DeviceRegistration) async throws -> DeviceCredentials {
        try await send("POST", "devices", body: try JSONEncoder().encode(registration)).decoded()
    }

    /// Deletes this device and everything it uploaded.
    public func forget() async throws {
        _ = try await send("DELETE", "devices/me", authorized: true)
    }

    public func saveVenue(id: String, _ venue: VenueUpsert) async throws -> Venue {
        try await send("PUT", "venues/\(try Self.pathComponent(id))", body: try JSONEncoder().encode(venue), authorized: true).decoded()
    }

    public func venue(id: String) async throws -> Venue {
        try await send("GET", "venues/\(try Self.pathComponent(id))").decoded()
    }

    /// The venue's public page on this server, for people (docs/public-pages.md).
    public func publicPage(ofVenue id: String) -> URL {
        server.appendingPathComponent("venues").appendingPathComponent(id)
    }

    /// Venues whose names hold each of `words`, by name; or near `place` within `radius` metres,
    /// nearest first; or both.
    public func venues(named words: String? = nil, near place: Coordinate? = nil, radius: Double = 1000, limit: Int = 20) async throws -> VenueList {
        var query = [URLQueryItem(name: "limit", value: "\(limit)")]
        if let words { query.append(URLQueryItem(name: "q", value: words)) }
        if let place {
            query.append(URLQueryItem(name: "near", value: "\(place.latitude),\(place.longitude)"))
            query.append(URLQueryItem(name: "radius", value: "\(radius)"))
        }
        return try await send("GET", "venues", query: query).decoded()
    }

    /// The raw loudness document (for `--json`) and its decoded form.
    public func loudness(venueID: String) async throws -> (json: Data, loudness: Loudness) {
        let answer = try await send("GET", "venues/\(try Self.pathComponent(venueID))/loudness")
        return (answer.body, try answer.decoded())
    }

    /// API v2's loudness, with the conversation measures in each cell: the raw document and its decoded form.
    public func conversationLoudness(venueID: String) async throws -> (json: Data, loudness: ConversationLoudness) {
        let answer = try await send("GET", "venues/\(try Self.pathComponent(venueID))/loudness", version: 2)
        return (answer.body, try answer.decoded())
    }

    /// Venues near a place ranked by how easily people talk there at a local weekday and hour.
    public func ranking(near latitude: Double, _ longitude: Double, at: WeekdayHour, hearingLoss: Bool, radius: Double, limit: Int = 20) async throws -> (
        json: Data, ranking: VenueRanking
    ) {
        let answer = try await send(
            "GET", "venues", version: 2,
            query: [
                URLQueryItem(name: "near", value: "\(latitude),\(longitude)"), URLQueryItem(name: "at", value: at.description),
                URLQueryItem(name: "radius", value: "\(radius)"), URLQueryItem(name: "limit", value: "\(limit)"),
                URLQueryItem(name: "hearing_loss", value: hearingLoss ? "true" : "false"),
            ])
        return (answer.body, try answer.decoded())
    }

    public func scale() async throws -> LabelScale {
        try await send("GET", "scale").decoded()
    }

    /// Uploads a waiting check-in gzip-compressed, its file's bytes as they are: through API v2
    /// when it is sealed in v2's columns; to a server that answers 404 there (one older than v2),
    /// through v1 (no details), decoded and encoded as v1's objects, remembering that the server
    /// has no v2 so the next uploads go straight to v1. Files an older client sealed in v1's
    /// objects go to v1 as they are.
    public func upload(_ pending: PendingCheckIn) async throws -> Upload {
        if pending.isVersion2 && versions?.lacksVersion2(server) != true {
            do {
                return try Upload(try await send("POST", "checkins", version: 2, body: try Self.gzip(Data(contentsOf: pending.file)), gzipped: true, authorized: true))
            } catch Failure.server(status: 404, _, _) {
                versions?.rememberLacksVersion2(server)
            }
        }
        let body = pending.isVersion2 ? try Self.uploadBody(try pending.checkIn()) : try Self.gzip(Data(contentsOf: pending.file))
        return try Upload(try await send("POST", "checkins", body: body, gzipped: true, authorized: true))
    }

    /// What the server answered an upload.
    public struct Upload: Sendable {
        public let receipt: CheckInReceipt
        /// The server had this check-in already (200, not 201): a retry, or the same recording
        /// checked in again (its id from the recording, `UUID(timeOrderedAt:naming:)`); it counts once.
        public let storedBefore: Bool

        init(_ answer: Answer) throws {
            receipt = try answer.decoded()
            storedBefore = answer.status == 200
        }
    }

    /// The bytes an upload sends: the check-in's JSON, gzip-compressed. Encoded as the outbox seals
    /// a check-in (`CheckInV2.body(_:)`, the rest of its keys sorted), so that these are the bytes a
    /// sealed file goes up as: a plain `JSONEncoder` writes an object's keys in an order that
    /// changes from one process to the next, and with it how small gzip makes the columns (the
    /// bench's wire size moved between runs of the same code).
    public static func uploadBody(_ checkIn: CheckInV2) throws -> Data {
        try gzip(try checkIn.body(.outbox))
    }

    /// The bytes of an upload through API v1, for a server older than v2: v1's objects, keys sorted.
    public static func uploadBody(_ checkIn: CheckIn) throws -> Data {
        try gzip(try JSONEncoder.outbox.encode(checkIn))
    }

    /// At zlib's strongest level: a body of a few kilobytes costs little more to compress there,
    /// and goes up over a phone's network in fewer bytes.
    public static func gzip(_ json: Data) throws -> Data {
        var plain = ByteBuffer(bytes: json)
        let compressed = try plain.compress(with: .gzip(configuration: .init(compressionLevel: .bestCompression)))
        return Data(compressed.readableBytesView)
    }

    struct Answer {
        let status: Int
        let body: Data
        let contentType: String

        func decoded<Value: Decodable>() throws -> Value {
            do {
                return try JSONDecoder().decode(Value.self, from: body)
            } catch {
                throw Failure.foreign("the answer is not what a HearClear server sends (\(contentType.isEmpty ? "no content type" : contentType)): is the server URL right?")
            }
        }
    }

    /// Sends a request; the token only on requests that need it, and only to the configured server.
    private func send(
        _ method: String, _ path: String, version: Int = 1, query: [URLQueryItem] = [], body: Data? = nil, gzipped: Bool = false,
        authorized: Bool = false
    ) async throws -> Answer {
        var components = URLComponents(url: server.appendingPathComponent("api/v\(version)/\(path)"), resolvingAgainstBaseURL: false)!
        if !query.isEmpty {
            components.queryItems = query
            // URLComponents leaves a plus as it is, and a query is read as a form, where a plus is a space.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        }
        guard let url = components.url else { throw Failure.foreign("the server URL \(server.absoluteString) cannot take the path \(path)") }
        var headers = ["Accept": "application/json"]
        if authorized, let token { headers["Authorization"] = "Bearer \(token)" }
        if body != nil {
            headers["Content-Type"] = "application/json"
            if gzipped { headers["Content-Encoding"] = "gzip" }
        }
        let http = try await HTTPTransport.send(TransportRequest(method: method, url: url, headers: headers, body: body, timeout: timeout))
        if let failure = http.failure { throw Failure.network(failure) }
        let data = http.body
        let contentType = http.headers["content-type"] ?? ""
        let retryAfter = http.headers["retry-after"].flatMap(Double.init)
        guard (200..<300).contains(http.status) else {
            // Only the server's own error document is its word; a portal's or a proxy's page is not.
            if let message = try? JSONDecoder().decode(APIErrorBody.self, from: data).error.message {
                throw Failure.server(status: http.status, message: message, retryAfter: retryAfter)
            }
            if http.status >= 500 {
                // A proxy's 502 or 504 (the server down behind it) is worth retrying like the server's own 5xx.
                throw Failure.server(status: http.status, message: Self.reason(http.status), retryAfter: retryAfter)
            }
            if (300..<400).contains(http.status) {
                let target = http.headers["location"] ?? "somewhere"
                // The API's own redirect, whose words in the body do not come through a redirect
                // URLSession is told not to follow.
                if let venue = Self.mergedVenue(asked: path, location: target, server: server) {
                    throw Failure.server(status: http.status, message: "venue \(venue.merged) was merged into \(venue.kept): use \(venue.kept)", retryAfter: nil)
                }
                throw Failure.foreign(
                    "\(server.absoluteString) redirected to \(target) (\(http.status)); not followed, as the device token goes only to the server configured: check the server URL")
            }
            throw Failure.foreign(
                "\(server.absoluteString) answered \(http.status) without a HearClear error (\(contentType.isEmpty ? "no content type" : contentType)): is the server URL right, or is a proxy or a network login page in the way?")
        }
        return Answer(status: http.status, body: data, contentType: contentType)
    }

    /// The venue merged and the one kept when `location`, on this server, is the resource `asked`
    /// (`venues/ID/…`) of another venue: how the API answers for a venue an operator merged into
    /// another (docs/api.md).
    static func mergedVenue(asked path: String, location: String, server: URL) -> (merged: String, kept: String)? {
        guard let target = URL(string: location, relativeTo: server)?.absoluteURL,
            target.scheme == server.scheme, target.host == server.host, target.port == server.port
        else { return nil }
        let asked = path.split(separator: "/"), moved = target.path.split(separator: "/")
        guard asked.count >= 2, asked[0] == "venues", let venues = moved.lastIndex(of: "venues"), venues + 1 < moved.count,
            moved[(venues + 2)...].elementsEqual(asked[2...])
        else { return nil }
        return (String(asked[1]).removingPercentEncoding ?? String(asked[1]), String(moved[venues + 1]))
    }

    /// The reason phrase of a 5xx that came without the server's own words (a proxy's).
    static func reason(_ status: Int) -> String {
        switch status {
        case 500: "internal server error"
        case 502: "bad gateway"
        case 503: "service unavailable"
        case 504: "gateway timeout"
        default: "server error"
        }
    }

    static func pathComponent(_ id: String) throws -> String {
        guard let escaped = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_"))) else {
            throw Failure.foreign("bad venue id \(id)")
        }
        return escaped
    }
}
