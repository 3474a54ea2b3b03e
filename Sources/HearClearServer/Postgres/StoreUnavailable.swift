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

    /// How long a request waits for a connection while PostgreSQL is known to be unreachable, and
    /// at most while it is reachable but every connection is busy.
    static let unreachableWait: Duration = .seconds(1)
    static let busyWait: Duration = .seconds(30)

    /// Runs `body` on a pooled connection. When no connection comes while PostgreSQL is unreachable
    /// (`health`), or none within `busyWait`, or the connection is lost, throws `StoreUnavailable`.
    /// Once `body` has its connection it is not cut short: a transaction either commits or rolls
    /// back as PostgreSQL decides.
    static func withConnection<Result: Sendable>(
        _ client: PostgresClient, health: PostgresHealth = PostgresHealth(), maximumWait: Duration = busyWait, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let leased = LeaseFlag()
        do {
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    try await client.withConnection { connection in
                        leased.value.store(true, ordering: .sequentiallyConsistent)
                        return try await body(connection)
                    }
                }
                group.addTask {
                    let start = ContinuousClock.now
                    while !leased.value.load(ordering: .sequentiallyConsistent) {
                        let waited = ContinuousClock.now - start
                        if waited >= maximumWait || (waited >= unreachableWait && !health.isReachable) {
                            throw StoreUnavailable(reason: "no connection after \(waited)")
                        }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    return nil
                }
                while let next = try await group.next() {
                    if let result = next {
                        group.cancelAll()
                        return result
                    }
                }
                throw StoreUnavailable(reason: "the query ended without a result")
            }
        } catch let error as PSQLError where error.isUnreachable {
            throw StoreUnavailable(reason: "\(error.code)")
        } catch let error as PostgresTransactionError {
            for inner in [error.beginError, error.closureError, error.commitError].compactMap({ $0 }) {
                if let inner = inner as? PSQLError, inner.isUnreachable { throw StoreUnavailable(reason: "\(inner.code)") }
                if inner is StoreUnavailable { throw inner }
            }
            throw error.closureError ?? error.commitError ?? error.beginError ?? error
        }
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

/// Whether a request got its connection, shared with its timer.
private final class LeaseFlag: Sendable {
    let value = Atomic<Bool>(false)
}

/// Whether PostgreSQL answered lately: the change listener holds a connection all the time, so it
/// is the first to see PostgreSQL go away and come back.
public final class PostgresHealth: Sendable {
    private let reachable = Atomic<Bool>(true)

    public init() {}

    public var isReachable: Bool { reachable.load(ordering: .sequentiallyConsistent) }

    func set(reachable value: Bool) { reachable.store(value, ordering: .sequentiallyConsistent) }
}
