import Foundation
import LoopbackHTTP

/// A PostgreSQL cluster of one test's own (scripts/test-postgres.sh), for tests that crash and
/// restart PostgreSQL while the shared cluster serves every other suite. `stop()` removes it;
/// deinit does too, without waiting, for a test that ended early.
public final class PrivateCluster: Sendable {
    public let folder: String
    /// Its `postgres` database, as the superuser.
    public let adminURL: String
    /// Its port, kept from before `initdb` until the cluster is gone, through a crash and its
    /// resumption: with every end-to-end suite running, a port left free meanwhile can be taken
    /// (PostgreSQL binds with `SO_REUSEADDR`, so the reservation does not stop it).
    private let reservedPort: ReservedPort

    public var port: Int { reservedPort.port }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/test-postgres.sh").path

    public init() async throws {
        reservedPort = try ReservedPort()
        let words = try await PostgresCluster.run("/bin/sh", [Self.script, "start", "\(reservedPort.port)"]).split(separator: " ")
        guard words.count == 2 else { throw PostgresCluster.CommandFailed(command: "test-postgres.sh start", errors: "it printed \(words)") }
        folder = String(words[0])
        adminURL = String(words[1]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [Self.script, "stop", folder]
        try? process.run()
    }

    /// A new, empty database in this cluster; returns its URL.
    public func newDatabase() async throws -> String {
        try await PostgresCluster.newDatabase(in: adminURL)
    }

    /// Stops PostgreSQL as a crash would: no checkpoint, every connection cut.
    public func crash() async throws { _ = try await PostgresCluster.run("/bin/sh", [Self.script, "crash", folder]) }

    /// Starts it again on the same port, once it accepts connections.
    public func resume() async throws { _ = try await PostgresCluster.run("/bin/sh", [Self.script, "resume", folder]) }
}
