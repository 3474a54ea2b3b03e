import Foundation
import HearClearMigrations
import Logging
import PostgresNIO

/// Where the data lives: a SQLite file (the embedded default) or a PostgreSQL server, told apart
/// by `--database` / `HEARCLEAR_DATABASE`.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresAddress)

    public init(_ text: String) throws {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(try PostgresAddress(url: text))
        } else {
            self = .sqlite(path: text)
        }
    }

    /// What logs and messages show: never the password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let address): address.description
        }
    }
}

/// A `postgres://user:password@host:port/database` URL, read with Foundation's URL parser
/// (postgres-nio takes the parts, not a URL, and postgres-kit's parser is not worth a dependency).
public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String

    public init(url text: String) throws {
        guard let url = URLComponents(string: text), let host = url.host, !host.isEmpty, let username = url.user, !username.isEmpty else {
            throw StartFailure(description: "cannot read the database URL \(Self.redacted(text)): write postgres://user:password@host:port/database")
        }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        guard !database.isEmpty else {
            throw StartFailure(description: "the database URL \(Self.redacted(text)) names no database: end it with /DATABASE")
        }
        self.host = host
        port = url.port ?? 5432
        self.username = username.removingPercentEncoding ?? username
        password = url.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database
    }

    public var description: String { "postgres://\(username)@\(host):\(port)/\(database)" }

    private static func redacted(_ text: String) -> String {
        guard var url = URLComponents(string: text), url.password != nil else { return text }
        url.password = "…"
        return url.string ?? "postgres://…"
    }

    /// The pool's configuration: plain TCP (a deployment's PostgreSQL is on loopback or a private
    /// network; TLS needs certificates this project does not manage), and short connect timeouts so
    /// that requests fail fast with 503 while PostgreSQL is away.
    ///
    /// `planningOnce`: each prepared statement is planned once per connection
    /// (`plan_cache_mode = force_generic_plan`, given as the connection starts, so it costs no
    /// round trip). For the pool that stores uploads: by default PostgreSQL plans a statement that
    /// takes an array (`= ANY($1)`, `unnest($1, $2)`) again on every run once its tables are large,
    /// since the one plan, made for an array of ten, looks dearer than a plan for each run's few,
    /// though it is the same index lookups. At 10⁶ stored check-ins that planning was 15 % of
    /// PostgreSQL's time for a group of uploads (docs/profiling.md, Ingest, step 32). Only for that
    /// pool: its statements all look rows up by key, where one plan is right for every run, while
    /// the admin pages' and retention's ranges are better planned for their values.
    func clientConfiguration(maximumConnections: Int = 20, planningOnce: Bool = false) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: .disable)
        configuration.options.connectTimeout = .seconds(1)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(5))
        if planningOnce { configuration.options.additionalStartupParameters = [("plan_cache_mode", "force_generic_plan")] }
        return configuration
    }
}

/// Migrations for PostgreSQL: the numbered files of `Migrations/postgres`, each applied in its own
/// transaction and recorded in `hearclear_migration`. Servers starting together take an advisory
/// lock, so each file is applied once.
public enum PostgresMigrator {
    /// An arbitrary constant: the advisory lock's key for migrating.
    static let lockKey: Int64 = 0x4845_4152_434C_4552

    @discardableResult
    public static func migrate(_ client: PostgresClient, logger: Logger) async throws -> String {
        try await client.withConnection { connection in
            try await connection.query("CREATE TABLE IF NOT EXISTS hearclear_migration (name text PRIMARY KEY, applied_at timestamptz NOT NULL)", logger: logger)
            try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
            do {
                var applied = Set<String>()
                for try await name in try await connection.query("SELECT name FROM hearclear_migration", logger: logger).decode(String.self) {
                    applied.insert(name)
                }
                let deriveAgain = !Migrations.deriveAgainAfter[.postgres, default: []].subtracting(applied).isEmpty
                for file in try Migrations.files(for: .postgres) where !applied.contains(file.name) {
                    try await connection.inTransaction(logger: logger) { connection in
                        for statement in statements(of: file.sql) {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        switch Migrations.steps[.postgres]?[file.name] {
                        case .samplesIntoColumns: try await PostgresRepository.moveSamplesIntoColumns(on: connection, logger: logger)
                        case .histogramsIntoBytes: try await PostgresRepository.moveHistogramsIntoBytes(on: connection, logger: logger)
                        case .histogramsDense: try await PostgresRepository.makeHistogramsDense(on: connection, logger: logger)
                        case .secondsWeighed: try await PostgresRepository.weighSecondsAgain(on: connection, logger: logger)
                        case .venueNamesFolded: try await PostgresRepository.foldVenueNames(on: connection, logger: logger)
                        case nil: break
                        }
                        try await connection.query("INSERT INTO hearclear_migration (name, applied_at) VALUES (\(file.name), \(Date()))", logger: logger)
                    }
                    logger.notice("applied migration \(file.name)")
                }
                if deriveAgain {
                    try await connection.inTransaction(logger: logger) { connection in
                        try await PostgresRepository.deriveAgain(on: connection, logger: logger)
                    }
                }
                try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                throw error
            }
            return try await schemaVersion(connection, logger: logger)
        }
    }

    /// The statements of a migration file. postgres-nio runs one statement per query (the extended
    /// protocol), so the file is cut at semicolons after its `--` comments are removed; the files
    /// hold plain DDL, with no semicolon inside a statement.
    static func statements(of sql: String) -> [String] {
        let code = sql.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.range(of: "--").map { String(line[..<$0.lowerBound]) } ?? String(line)
        }.joined(separator: "\n")
        return code.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    static func schemaVersion(_ connection: PostgresConnection, logger: Logger) async throws -> String {
        for try await name in try await connection.query("SELECT max(name) FROM hearclear_migration", logger: logger).decode(String?.self) {
            return name ?? "empty"
        }
        return "empty"
    }
}
