import Foundation

/// The private PostgreSQL cluster `make test` starts (scripts/test-postgres.sh) and names in
/// `HEARCLEAR_TEST_POSTGRES`, a URL of its `postgres` database: every test gets a database of its
/// own in it, so tests never see each other's rows.
public enum PostgresCluster {
    public struct NotRunning: Error, CustomStringConvertible {
        public var description: String {
            "HEARCLEAR_TEST_POSTGRES is not set: run the tests with make test, which starts a private PostgreSQL (scripts/test-postgres.sh)"
        }
    }

    public struct PsqlFailed: Error, CustomStringConvertible {
        public let sql: String
        public let errors: String
        public var description: String { "psql failed on: \(sql): \(errors)" }
    }

    /// The cluster's `postgres` database, as the superuser.
    public static func adminURL() throws -> URLComponents {
        guard let text = ProcessInfo.processInfo.environment["HEARCLEAR_TEST_POSTGRES"], let url = URLComponents(string: text) else { throw NotRunning() }
        return url
    }

    /// A new, empty database; returns its URL.
    public static func newDatabase() throws -> String {
        var url = try adminURL()
        let name = "test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        _ = try psql(url.string ?? "", "CREATE DATABASE \(name)")
        url.path = "/\(name)"
        return url.string ?? ""
    }

    /// psql's unaligned, tuples-only output: one line per row.
    public static func psql(_ url: String, _ sql: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PsqlFailed(sql: sql, errors: String(decoding: errorData, as: UTF8.self)) }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
