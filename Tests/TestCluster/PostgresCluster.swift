import Foundation
import Subprocess
import SystemPackage

/// The private PostgreSQL cluster `make test` starts (scripts/test-postgres.sh) and names in
/// `HEARCLEAR_TEST_POSTGRES`, a URL of its `postgres` database: every test gets a database of its
/// own in it, so tests never see each other's rows. Programs run through swift-subprocess, as the
/// end-to-end tests run theirs: its SIGCHLD handling and Foundation's `Process.waitUntilExit`
/// do not mix in one test process.
public enum PostgresCluster {
    public struct NotRunning: Error, CustomStringConvertible {
        public var description: String {
            "HEARCLEAR_TEST_POSTGRES is not set: run the tests with make test, which starts a private PostgreSQL (scripts/test-postgres.sh)"
        }
    }

    public struct CommandFailed: Error, CustomStringConvertible {
        public let command: String
        public let errors: String
        public var description: String { "\(command) failed: \(errors)" }
    }

    /// A new, empty database in the shared cluster; returns its URL.
    public static func newDatabase() async throws -> String {
        guard let admin = ProcessInfo.processInfo.environment["HEARCLEAR_TEST_POSTGRES"] else { throw NotRunning() }
        return try await newDatabase(in: admin)
    }

    /// A new, empty database in the cluster whose `postgres` database is at `admin`; returns its URL.
    static func newDatabase(in admin: String) async throws -> String {
        guard var url = URLComponents(string: admin) else { throw NotRunning() }
        let name = "test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        _ = try await psql(admin, "CREATE DATABASE \(name)")
        url.path = "/\(name)"
        return url.string ?? ""
    }

    /// psql's unaligned, tuples-only output: one line per row.
    public static func psql(_ url: String, _ sql: String) async throws -> [String] {
        let output = try await run("/usr/bin/psql", [url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
        return output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Runs a program to its end; its output, or `CommandFailed` with what it said on stderr.
    static func run(_ program: String, _ arguments: [String]) async throws -> String {
        let result = try await Subprocess.run(
            .path(FilePath(program)), arguments: Arguments(arguments), input: .none, output: .string(limit: 64 << 20), error: .string(limit: 1 << 20))
        guard case .exited(0) = result.terminationStatus else {
            throw CommandFailed(command: ([program] + arguments).joined(separator: " "), errors: result.standardError)
        }
        return result.standardOutput
    }
}
