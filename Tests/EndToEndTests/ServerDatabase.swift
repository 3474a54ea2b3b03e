import Foundation
import HearClearAnalysis
import HearClearCore
import LoopbackHTTP
import TestCluster

/// Where an end-to-end test's server keeps its data: a SQLite file in the test's folder, or a
/// database of its own in the PostgreSQL cluster `make test` starts. Tests look at the rows with
/// the store's own shell (sqlite3 or psql), not with the code under test.
struct ServerDatabase: Sendable {
    let kind: StoreKind
    /// What `--database` takes: the file's path or the database's URL.
    let location: String
    /// Where the server's log goes.
    let folder: URL

    init(_ kind: StoreKind, named name: String, in folder: URL) async throws {
        self.kind = kind
        self.folder = folder
        switch kind {
        case .sqlite: location = folder.appendingPathComponent("\(name).sqlite").path
        case .postgres: location = try await PostgresCluster.newDatabase()
        }
    }

    /// `sql`'s answer: a line per row, columns joined by `|`. Written for both stores: booleans as
    /// TRUE/FALSE, times through `epoch(_:)`.
    func query(_ sql: String) async throws -> String {
        switch kind {
        case .sqlite: try await sqlite(location, sql)
        case .postgres: try await PostgresCluster.psql(location, sql).joined(separator: "\n")
        }
    }

    /// How many seconds the check-ins' samples blobs hold (pruned check-ins hold none), in SQL
    /// for both stores; `verify` checks each blob against its check-in's count.
    static let storedSeconds = "SELECT COALESCE(SUM(samples), 0) FROM checkin WHERE sample_columns IS NOT NULL"

    /// Every stored second, check-in after check-in, read from the samples blobs with the
    /// server's codec (which SampleColumnsTests checks on its own): SQL cannot read them.
    func storedSamples() async throws -> [Sample] {
        let hex = kind == .sqlite ? "hex(sample_columns)" : "encode(sample_columns, 'hex')"
        return try await query("SELECT id || ' ' || interval_s || ' ' || \(hex) FROM checkin WHERE sample_columns IS NOT NULL ORDER BY seq")
            .split(separator: "\n").flatMap { line in
                let fields = line.split(separator: " ")
                return try SampleColumns.stored(Data(hexDigits: fields[2]), intervalS: Double(fields[1])!, checkIn: String(fields[0]))?.samples ?? []
            }
    }

    /// A time column as Unix seconds, in this store's SQL.
    func epoch(_ column: String) -> String {
        kind == .sqlite ? "CAST(\(column) AS INTEGER)" : "CAST(extract(epoch FROM \(column)) AS BIGINT)"
    }

    /// Now minus `seconds`, as this store compares with a time column.
    func secondsAgo(_ seconds: Int) -> String {
        kind == .sqlite ? "(strftime('%s', 'now') - \(seconds))" : "(now() - make_interval(secs => \(seconds)))"
    }
}

extension ServerProcess {
    /// `hearclear-server serve` over `database`, its log in the database's folder.
    convenience init(database: ServerDatabase, port: ReservedPort? = nil, arguments: [String] = [], environment: [String: String] = [:]) async throws {
        try await self.init(database: database.location, port: port, arguments: arguments, environment: environment, logFolder: database.folder)
    }
}
