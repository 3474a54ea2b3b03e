import Foundation
import Hummingbird
import PostgresNIO
import Synchronization

/// The database cannot be reached (PostgreSQL down, restarting, or out of connections): requests
/// that need it are answered 503 with `Retry-After`, never left hanging and never 500.
public struct StoreUnavailable: Error, HTTPResponseError, CustomStringConvertible {
    public var reason: String

    public var status: HTTPResponse.Status { .serviceUnavailable }
    public var description: String { "the database is unreachable: \(reason)" }

    public var headers: HTTPFields { [.retryAfter: "2"] }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try HTTPError(.serviceUnavailable, headers: headers, message: "the database is unreachable: retry in 2 s").response(from: request, context: context)
    }

    /// What an error of a database operation means to a client: a lost or refused connection is
    /// `StoreUnavailable`, anything else stays as it is.
    static func translating(_ error: any Error) -> any Error {
        if let error = error as? PSQLError, error.isUnreachable { return StoreUnavailable(reason: "\(error.code)") }
        return error
    }
}

extension PSQLError {
    /// Errors of the connection rather than of the SQL: the server is away, restarting or shutting down.
    var isUnreachable: Bool {
        switch code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed: return true
        case .server:
            // 57P01–57P03: admin shutdown, crash shutdown, cannot connect now; 08xxx: connection exceptions.
            let state = serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("57P") || state.hasPrefix("08")
        default: return false
        }
    }
}

/// Whether PostgreSQL answered lately: the change listener holds a connection all the time, so it
/// is the first to see PostgreSQL go away and come back.
public final class PostgresHealth: Sendable {
    private let reachable = Atomic<Bool>(true)

    public init() {}

    public var isReachable: Bool { reachable.load(ordering: .sequentiallyConsistent) }

    func set(reachable value: Bool) { reachable.store(value, ordering: .sequentiallyConsistent) }
}
