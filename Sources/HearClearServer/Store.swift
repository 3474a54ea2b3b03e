import Foundation
import GRDB
import HearClearCore
import Logging
import PostgresNIO
import ServiceLifecycle

/// A store the server and its maintenance commands run on: the routes' `AdminStore`, plus the
/// checks and repairs of `verify` and `rebuild`.
public protocol MaintainedStore: AdminStore {
    func verify() async throws -> [String]
    func rebuild() async throws
}

extension SQLiteRepository: MaintainedStore {}
extension PostgresRepository: MaintainedStore {}

/// An opened, migrated store with what must run beside it (PostgreSQL's pool and listener) and
/// how to close it.
public struct OpenedStore: Sendable {
    public let store: any MaintainedStore
    public let schemaVersion: String
    /// Told of every commit that may change a venue's answers (and, on PostgreSQL, of other servers' commits).
    public let changes: VenueChangeFeed
    /// Where the write limits' buckets are kept: in memory for the one server a SQLite file has, in
    /// PostgreSQL for a deployment of several servers.
    let rateBuckets: any RateBuckets
    /// Whether the store answers now (`/healthz`): a file always does; PostgreSQL as its listener last saw it.
    let isReachable: @Sendable () -> Bool
    /// Run in the server's service group; they end (and close the store) on graceful shutdown.
    let services: [any Service]
    /// Closes the store when it is used outside a service group (the maintenance commands).
    public let close: @Sendable () -> Void

    /// Opens the store at `location` and applies the migrations it lacks. `changes` is told of
    /// every commit that may change a venue's answers (and, for PostgreSQL, of other servers' commits).
    public static func open(
        _ location: DatabaseLocation, defaultCalibrationDB: Double = Level.defaultCalibrationDB, changes: VenueChangeFeed = VenueChangeFeed(),
        logger: Logger
    ) async throws -> OpenedStore {
        switch location {
        case .sqlite(let path):
            let pool = try SQLiteDatabase.openPool(path: path)
            let version = try SQLiteDatabase.migrate(pool)
            let repository = SQLiteRepository(pool: pool, defaultCalibrationDB: defaultCalibrationDB, changes: changes)
            let close: @Sendable () -> Void = { try? repository.close() }
            return OpenedStore(
                store: repository, schemaVersion: version, changes: changes, rateBuckets: LocalRateBuckets(), isReachable: { true },
                services: [StoreCloser(close: close)], close: close)
        case .postgres(let address):
            return try await openPostgres(address, defaultCalibrationDB: defaultCalibrationDB, changes: changes, logger: logger).opened
        }
    }

    /// Opens and migrates a PostgreSQL store; the repository is also given as itself, for what
    /// only PostgreSQL does (`copy` into it).
    public static func openPostgres(
        _ address: PostgresAddress, defaultCalibrationDB: Double = Level.defaultCalibrationDB, changes: VenueChangeFeed = VenueChangeFeed(),
        logger: Logger
    ) async throws -> (repository: PostgresRepository, opened: OpenedStore) {
        let client = PostgresClient(configuration: address.clientConfiguration(), backgroundLogger: logger)
        // Groups of uploads are stored one at a time (`PostgresGroupCommit`): two connections leave
        // one in reserve should the other be lost.
        let uploadClient = PostgresClient(configuration: address.clientConfiguration(maximumConnections: 2, planningOnce: true), backgroundLogger: logger)
        let running = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                group.addTask { await uploadClient.run() }
            }
        }
        do {
            // Reachable at all? Else say so within seconds rather than retrying forever.
            let health = PostgresHealth()
            try await client.withAvailableConnection(health: health, maximumWait: .seconds(10)) { connection in
                _ = try await connection.query("SELECT 1", logger: logger)
            }
            let version = try await PostgresMigrator.migrate(client, logger: logger)
            let repository = PostgresRepository(
                client: client, uploadClient: uploadClient, defaultCalibrationDB: defaultCalibrationDB, changes: changes, health: health, logger: logger)
            let opened = OpenedStore(
                store: repository, schemaVersion: version, changes: changes,
                rateBuckets: PostgresRateBuckets(client: client, health: health, logger: logger), isReachable: { health.isReachable },
                services: [ChangeListener(client: client, changes: changes, health: health, logger: logger), StoreCloser(close: { running.cancel() })],
                close: { running.cancel() })
            return (repository, opened)
        } catch let error as StoreUnavailable {
            running.cancel()
            throw StartFailure(description: "cannot reach the database \(address): \(error.reason) (is PostgreSQL running there, and may this user log in?)")
        } catch {
            running.cancel()
            throw StartFailure(description: "cannot open the database \(address): \(String(reflecting: error))")
        }
    }
}

/// Closes the store when the server has stopped.
struct StoreCloser: Service {
    let close: @Sendable () -> Void

    func run() async throws {
        try? await gracefulShutdown()
        close()
    }
}
