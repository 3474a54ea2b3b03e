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

    init(client: PostgresClient, health: PostgresHealth, logger: Logger) {
        self.client = client
        self.health = health
        self.logger = logger
    }

    func take(_ key: String, perMinute limit: Int) async throws -> Duration? {
        let logger = logger
        let wait = try await client.withAvailableTransaction(health: health, logger: logger) { connection -> Duration? in
            // Made full when new, locked either way (as `FOR UPDATE` would) until the transaction
            // ends, so two servers' first writes cannot both start a full bucket.
            let (tokens, elapsed) =
                try await connection.query(
                    """
                    INSERT INTO rate_bucket (key, tokens, updated_at) VALUES (\(key), \(Double(limit)), clock_timestamp())
                    ON CONFLICT (key) DO UPDATE SET tokens = rate_bucket.tokens
                    RETURNING tokens, EXTRACT(EPOCH FROM clock_timestamp() - updated_at)::double precision
                    """, logger: logger
                ).decode((Double, Double).self).first { _ in true } ?? (Double(limit), 0)
            let taken = TokenBucket.take(tokens: tokens, elapsed: elapsed, perMinute: limit)
            try await connection.query(
                "UPDATE rate_bucket SET tokens = \(taken.tokens), updated_at = clock_timestamp() WHERE key = \(key)", logger: logger)
            return taken.wait
        }
        try await sweepIfDue()
        return wait
    }

    func available(_ key: String, perMinute limit: Int) async throws -> Double {
        let logger = logger
        let row = try await client.withAvailableConnection(health: health) { connection in
            try await connection.query(
                "SELECT tokens, EXTRACT(EPOCH FROM clock_timestamp() - updated_at)::double precision FROM rate_bucket WHERE key = \(key)", logger: logger
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
