import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The write limits' buckets in PostgreSQL, so a device gets its writes a minute whichever servers
/// it reaches. Each take locks the key's row for the length of a short transaction, so two servers
/// taking from one bucket at once take one token each; elapsed time is PostgreSQL's clock, not the
/// servers'. Buckets idle for longer than they take to fill are deleted now and then.
final class PostgresRateBuckets: RateBuckets {
    let client: PostgresClient
    let health: PostgresHealth
    let logger: Logger
    /// When this server last deleted idle buckets.
    private let lastSweep = Mutex(ContinuousClock.now)
    /// PostgreSQL's clock, or a moment that does not move: tests of what a burst of writes is
    /// allowed must not depend on how long a loaded machine takes to send it.
    private let clock: String

    init(client: PostgresClient, health: PostgresHealth, logger: Logger, frozenAt: Date? = nil) {
        self.client = client
        self.health = health
        self.logger = logger
        clock = frozenAt.map { "to_timestamp(\($0.timeIntervalSince1970))" } ?? "clock_timestamp()"
    }

    /// The same buckets, their time standing still at `moment`.
    func frozen(at moment: Date) -> PostgresRateBuckets {
        PostgresRateBuckets(client: client, health: health, logger: logger, frozenAt: moment)
    }

    func take(_ key: String, perMinute limit: Int) async throws -> Duration? {
        let logger = logger, clock = clock
        let wait = try await client.withAvailableTransaction(health: health, logger: logger) { connection -> Duration? in
            // Made full when new, locked either way (as `FOR UPDATE` would) until the transaction
            // ends, so two servers' first writes cannot both start a full bucket.
            let (tokens, elapsed) =
                try await connection.query(
                    """
                    INSERT INTO rate_bucket (key, tokens, updated_at) VALUES (\(key), \(Double(limit)), \(unescaped: clock))
                    ON CONFLICT (key) DO UPDATE SET tokens = rate_bucket.tokens
                    RETURNING tokens, EXTRACT(EPOCH FROM \(unescaped: clock) - updated_at)::double precision
                    """, logger: logger
                ).decode((Double, Double).self).first { _ in true } ?? (Double(limit), 0)
            let taken = TokenBucket.take(tokens: tokens, elapsed: elapsed, perMinute: limit)
            try await connection.query(
                "UPDATE rate_bucket SET tokens = \(taken.tokens), updated_at = \(unescaped: clock) WHERE key = \(key)", logger: logger)
            return taken.wait
        }
        try await sweepIfDue()
        return wait
    }

    func available(_ key: String, perMinute limit: Int) async throws -> Double {
        let logger = logger, clock = clock
        let row = try await client.withAvailableConnection(health: health) { connection in
            try await connection.query(
                "SELECT tokens, EXTRACT(EPOCH FROM \(unescaped: clock) - updated_at)::double precision FROM rate_bucket WHERE key = \(key)", logger: logger
            ).decode((Double, Double).self).first { _ in true }
        }
        return TokenBucket.available(tokens: row?.0, elapsed: row?.1 ?? 0, perMinute: limit)
    }

    /// At most once a minute per server.
    private func sweepIfDue() async throws {
        let due = lastSweep.withLock { last in
            guard ContinuousClock.now - last >= TokenBucket.fullAfter else { return false }
            last = .now
            return true
        }
        guard due else { return }
        let idle = Int(TokenBucket.fullAfter.inSeconds)
        _ = try await client.withAvailableConnection(health: health) { [logger] connection in
            try await connection.query("DELETE FROM rate_bucket WHERE updated_at < clock_timestamp() - make_interval(secs => \(idle))", logger: logger)
        }
    }
}
