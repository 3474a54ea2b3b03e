import CompressNIO
import Foundation
import HearClearCore
import NIOCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// API v1 over HTTP (URLSession, libcurl on Linux).
public struct APIClient: Sendable {
    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// The server answered with an error; `message` is its own.
        case server(status: Int, message: String)
        /// The server could not be reached or the answer was cut off.
        case network(String)

        public var description: String {
            switch self {
            case .server(let status, let message): "server answered \(status): \(message)"
            case .network(let reason): "cannot reach the server: \(reason)"
            }
        }

        /// Worth trying again later: the network, or a server error (5xx).
        public var isTransient: Bool {
            switch self {
            case .network: true
            case .server(let status, _): status >= 500
            }
        }
    }

    public let server: URL
    public let token: String?
    private let session: URLSession

    public init(server: URL, token: String? = nil, timeout: TimeInterval = 30) {
        self.server = server
        self.token = token
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        self.session = URLSession(configuration: configuration)
    }

    public func register(_ registration: DeviceRegistration) async throws -> DeviceCredentials {
        try await send("POST", "devices", body: try JSONEncoder().encode(registration)).decoded()
    }

    public func saveVenue(id: String, _ venue: VenueUpsert) async throws -> Venue {
        try await send("PUT", "venues/\(try Self.pathComponent(id))", body: try JSONEncoder().encode(venue)).decoded()
    }

    public func venue(id: String) async throws -> Venue {
        try await send("GET", "venues/\(try Self.pathComponent(id))").decoded()
    }

    public func venues(near latitude: Double, _ longitude: Double, radius: Double, limit: Int = 20) async throws -> VenueList {
        try await send("GET", "venues", query: [
            URLQueryItem(name: "near", value: "\(latitude),\(longitude)"),
            URLQueryItem(name: "radius", value: "\(radius)"),
            URLQueryItem(name: "limit", value: "\(limit)"),
        ]).decoded()
    }

    /// The raw loudness document (for `--json`) and its decoded form.
    public func loudness(venueID: String) async throws -> (json: Data, loudness: Loudness) {
        let answer = try await send("GET", "venues/\(try Self.pathComponent(venueID))/loudness")
        return (answer.body, try answer.decoded())
    }

    public func scale() async throws -> LabelScale {
        try await send("GET", "scale").decoded()
    }

    /// Uploads a check-in gzip-compressed.
    public func upload(_ checkIn: CheckIn) async throws -> CheckInReceipt {
        try await send("POST", "checkins", body: try Self.uploadBody(checkIn), gzipped: true).decoded()
    }

    /// The bytes an upload sends: the check-in's JSON, gzip-compressed.
    public static func uploadBody(_ checkIn: CheckIn) throws -> Data {
        var plain = ByteBuffer(bytes: try JSONEncoder().encode(checkIn))
        let compressed = try plain.compress(with: .gzip())
        return Data(compressed.readableBytesView)
    }

    /// Uploads with a few bounded retries, backing off, for network errors and 5xx; a 4xx is final.
    public func uploadRetrying(_ checkIn: CheckIn, attempts: Int = 3, firstDelay: Duration = .milliseconds(500)) async throws -> CheckInReceipt {
        var delay = firstDelay
        for attempt in 1...attempts {
            do {
                return try await upload(checkIn)
            } catch let failure as Failure where failure.isTransient && attempt < attempts {
                try await Task.sleep(for: delay)
                delay *= 2
            }
        }
        preconditionFailure("the last attempt returns or throws")
    }

    struct Answer {
        let body: Data

        func decoded<Value: Decodable>() throws -> Value {
            do {
                return try JSONDecoder().decode(Value.self, from: body)
            } catch {
                throw Failure.network("the answer is not what API v1 sends: \(error)")
            }
        }
    }

    private func send(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, gzipped: Bool = false) async throws -> Answer {
        var components = URLComponents(url: server.appendingPathComponent("api/v1/\(path)"), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query }
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            if gzipped { request.setValue("gzip", forHTTPHeaderField: "Content-Encoding") }
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw Failure.network(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw Failure.network("not an HTTP answer") }
        guard (200..<300).contains(http.statusCode) else {
            let message = (try? JSONDecoder().decode(APIErrorBody.self, from: data).error.message)
                ?? HTTPURLResponse.localizedString(forStatusCode: http.statusCode)
            throw Failure.server(status: http.statusCode, message: message)
        }
        return Answer(body: data)
    }

    static func pathComponent(_ id: String) throws -> String {
        guard let escaped = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_"))) else {
            throw Failure.server(status: 400, message: "bad venue id")
        }
        return escaped
    }
}

/// Sends every check-in waiting in the outbox; what the server accepted leaves it, what it refused
/// moves aside, what could not go up stays for next time.
public struct Sync: Sendable {
    public struct Result: Sendable {
        public var uploaded: [CheckInReceipt] = []
        public var rejected: [(id: UUID, message: String)] = []
        public var waiting: [(id: UUID, reason: String)] = []
    }

    public let outbox: Outbox
    public let client: APIClient

    public init(outbox: Outbox, client: APIClient) {
        self.outbox = outbox
        self.client = client
    }

    public func run(attempts: Int = 3) async throws -> Result {
        try outbox.recoverInterruptedRecordings()
        var result = Result()
        for (file, checkIn) in try outbox.pending() {
            do {
                let receipt = try await client.uploadRetrying(checkIn, attempts: attempts)
                try outbox.remove(file)
                result.uploaded.append(receipt)
            } catch let failure as APIClient.Failure where !failure.isTransient {
                try outbox.moveAside(file, reason: failure.description)
                result.rejected.append((checkIn.id, failure.description))
            } catch let failure as APIClient.Failure {
                result.waiting.append((checkIn.id, failure.description))
            }
        }
        return result
    }
}
