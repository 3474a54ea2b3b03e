import Foundation
import LoopbackHTTP
import Subprocess
import SystemPackage
import TestSignals

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The package's built executables, run as separate processes.
enum Executable {
    /// The package's own folder (docs, .venv, .build).
    static let packageFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Where the build that runs these tests put the executables: next to the test binary, so
    /// `swift test -c release` runs the release ones.
    static let buildFolder: URL = {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        // Some runners start the binary inside the .xctest bundle.
        while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("hearclear-server").path) {
            folder = folder.deletingLastPathComponent()
        }
        return folder
    }()

    struct Result {
        let status: Int32
        let output: String
        let errors: String
    }

    /// This process's environment without HearClear's own variables, plus `added`.
    static func environment(adding added: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARCLEAR_") }.merging(added) { $1 }
    }

    /// Runs one of the package's executables to the end, with `environment` added to this process's.
    static func run(_ name: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await run(program: buildFolder.appendingPathComponent(name), arguments, environment: environment)
    }

    /// Runs a program to the end and collects what it printed (swift-subprocess).
    static func run(program: URL, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) async throws -> Result {
        let variables = Executable.environment(adding: environment)
        let result = try await Subprocess.run(
            .path(FilePath(program.path)), arguments: Arguments(arguments),
            environment: .custom(Dictionary(uniqueKeysWithValues: variables.map { (Environment.Key(stringLiteral: $0.key), $0.value) })),
            workingDirectory: directory.map { FilePath($0.path) },
            input: .none, output: .string(limit: 256 << 20), error: .string(limit: 256 << 20))
        let status: Int32 =
            switch result.terminationStatus {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            }
        return Result(status: status, output: result.standardOutput, errors: result.standardError)
    }
}

extension ServerProcess {
    /// `hearclear-server serve` over `database` on `port` (nil: a port of its own, kept for a
    /// restart, as another's `reservedPort` is), its log in a file next to it (a SQLite file) or
    /// in `logFolder` (which a PostgreSQL URL needs).
    convenience init(
        database: String, port: ReservedPort? = nil, arguments: [String] = [], environment: [String: String] = [:], logFolder: URL? = nil
    ) async throws {
        let logName = ".\(UUID().uuidString.prefix(8)).log"
        let port = try port ?? ReservedPort()
        try await self.init(
            executable: Executable.buildFolder.appendingPathComponent("hearclear-server"),
            arguments: ["serve", "--port", "\(port.port)", "--database", database] + arguments,
            environment: Executable.environment(adding: environment),
            logFile: logFolder.map { $0.appendingPathComponent("server" + logName) } ?? URL(fileURLWithPath: database + logName),
            holding: port)
    }
}

/// A client of its own: HOME, config and data under `folder`, no colours.
func clientEnvironment(in folder: URL) -> [String: String] {
    [
        "HOME": folder.path, "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path,
        "XDG_DATA_HOME": folder.appendingPathComponent("data").path, "NO_COLOR": "1",
        "HEARCLEAR_CONFIG": folder.appendingPathComponent("config/hearclear/config.json").path,
    ]
}

/// Runs the sqlite3 shell on a database and returns its output, trimmed.
func sqlite(_ database: String, _ sql: String) async throws -> String {
    let result = try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/sqlite3"), [database, sql])
    return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
}

func temporaryFolder() throws -> URL {
    try temporaryFolder("e2e")
}
