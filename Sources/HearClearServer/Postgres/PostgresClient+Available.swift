import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

extension PostgresClient {
    /// How long an operation waits for a connection while PostgreSQL is known to be unreachable,
    /// and at most while it is reachable but every connection is busy.
    static let unreachableWait: Duration = .seconds(1)
    static let busyWait: Duration = .seconds(30)
    /// How long an operation whose connection has closed may take to notice it before it is given up.
    static let closedConnectionGrace: Duration = .seconds(1)

    /// Runs `body` on a pooled connection, and throws `StoreUnavailable` when no connection comes
    /// while PostgreSQL is unreachable (`health`), or none within `maximumWait`, or the connection is
    /// lost. Once `body` has its connection it is not cut short while the connection lives: a
    /// transaction commits or rolls back as PostgreSQL decides.
    ///
    /// `body` runs in a task of its own that the caller stops waiting for once its connection has
    /// been closed for `closedConnectionGrace`: postgres-nio 1.33 never answers a query written to a
    /// connection that has just closed (the query's promise goes with the channel's handlers), and a
    /// request must not wait for ever, nor hold up a graceful shutdown, for it. Such a task is left
    /// behind; it happens only when PostgreSQL goes away mid-query.
    func withAvailableConnection<Result: Sendable>(
        health: PostgresHealth, maximumWait: Duration = busyWait, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let operation = PendingOperation<Result>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                operation.start(continuation)
                operation.watch(
                    Task {
                        do {
                            let result = try await self.withConnection { connection in
                                // Given up on while waiting for the connection: the caller has had its 503.
                                guard operation.leased(connection) else { throw CancellationError() }
                                return try await body(connection)
                            }
                            operation.finish(.success(result))
                        } catch {
                            operation.finish(.failure(StoreUnavailable.translating(error)))
                        }
                    },
                    health: health, maximumWait: maximumWait)
            }
        } onCancel: {
            operation.cancel()
        }
    }

    /// `body` in a transaction on a pooled connection (`withAvailableConnection`).
    func withAvailableTransaction<Result: Sendable>(
        health: PostgresHealth, logger: Logger, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withAvailableConnection(health: health) { connection in
            try await connection.inTransaction(logger: logger) { connection in try await body(connection) }
        }
    }
}

extension PostgresConnection {
    /// BEGIN, `body`, COMMIT, or ROLLBACK when `body` throws: postgres-nio's `withTransaction`, but
    /// sending no ROLLBACK on a connection that has closed (postgres-nio would never answer it;
    /// PostgreSQL rolls back a transaction whose connection has gone by itself), and throwing the
    /// error itself rather than a wrapper.
    func inTransaction<Result: Sendable>(logger: Logger, _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await run(PostgresRepository.Statement.Begin(), logger: logger)
        let result: Result
        do {
            result = try await body(self)
        } catch {
            if !isClosed { _ = try? await query("ROLLBACK", logger: logger) }
            throw error
        }
        try await run(PostgresRepository.Statement.Commit(), logger: logger)
        return result
    }
}

/// One database operation as its caller waits for it: answered once, by the operation itself or by
/// its watchdog (a NIO timer, not a task: it costs nothing to operations that end within its first
/// tick).
private final class PendingOperation<Result: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result, any Error>?
        var work: Task<Void, Never>?
        var watchdog: RepeatedTask?
        var connection: PostgresConnection?
        var closedSince: ContinuousClock.Instant?
        var cancelled = false
    }

    private let state = Mutex(State())
    private let started = ContinuousClock.now
    private static var tick: TimeAmount { .milliseconds(250) }

    func start(_ continuation: CheckedContinuation<Result, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func watch(_ work: Task<Void, Never>, health: PostgresHealth, maximumWait: Duration) {
        let watchdog = MultiThreadedEventLoopGroup.singleton.any().scheduleRepeatedTask(initialDelay: Self.tick, delay: Self.tick) { [self] _ in
            check(health: health, maximumWait: maximumWait)
        }
        let cancelled = state.withLock { state in
            state.work = work
            if state.continuation == nil { watchdog.cancel() } else { state.watchdog = watchdog }
            return state.cancelled
        }
        if cancelled { work.cancel() }
    }

    /// Whether the caller still waits for the operation.
    func leased(_ connection: PostgresConnection) -> Bool {
        state.withLock { state in
            state.connection = connection
            return state.continuation != nil
        }
    }

    func finish(_ result: Swift.Result<Result, any Error>) {
        let (continuation, watchdog) = state.withLock { state in
            defer { (state.continuation, state.watchdog) = (nil, nil) }
            return (state.continuation, state.watchdog)
        }
        watchdog?.cancel()
        continuation?.resume(with: result)
    }

    func cancel() {
        let work = state.withLock { state in
            state.cancelled = true
            return state.work
        }
        work?.cancel()
    }

    private func check(health: PostgresHealth, maximumWait: Duration) {
        let now = ContinuousClock.now
        let verdict: String? = state.withLock { state in
            guard let connection = state.connection else {
                let waited = now - started
                if waited >= maximumWait || (waited >= PostgresClient.unreachableWait && !health.isReachable) {
                    return "no connection after \(waited)"
                }
                return nil
            }
            guard connection.isClosed else { return nil }
            let closedSince = state.closedSince ?? now
            state.closedSince = closedSince
            return now - closedSince >= PostgresClient.closedConnectionGrace ? "the connection was lost" : nil
        }
        guard let verdict else { return }
        finish(.failure(StoreUnavailable(reason: verdict)))
        state.withLock { $0.work }?.cancel()
    }
}
