import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The package's built executables, run as separate processes.
enum Executable {
    static let buildFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/debug")

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
    static func run(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        try run(program: buildFolder.appendingPathComponent(name), arguments, environment: environment)
    }

    static func run(program: URL, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = program
        if let directory { process.currentDirectoryURL = directory }
        process.arguments = arguments
        process.environment = Executable.environment(adding: environment)
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Drain stderr on another thread so neither pipe can fill up and block the child.
        nonisolated(unsafe) var errorData = Data()
        let drained = DispatchSemaphore(value: 0)
        Thread {
            errorData = errors.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self), errors: String(decoding: errorData, as: UTF8.self))
    }
}

/// A `hearclear-server` process on loopback, stopped at deinit. Its methods act on the process,
/// which is safe from any thread.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let startLine: String
    let url: URL
    private let output = LogBuffer()

    /// Starts on `port` (0: a free one) and waits for the start line that names the address.
    init(database: String, port: Int = 0, arguments: [String] = [], environment: [String: String] = [:]) throws {
        process.executableURL = Executable.buildFolder.appendingPathComponent("hearclear-server")
        process.arguments = ["serve", "--port", "\(port)", "--database", database] + arguments
        process.environment = Executable.environment(adding: environment)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        var text = ""
        var found: String?
        while found == nil {
            let data = pipe.fileHandleForReading.availableData
            guard !data.isEmpty else { break }  // the server ended before announcing itself
            text += String(decoding: data, as: UTF8.self)
            found = text.split(separator: "\n").first { $0.contains("HearClear server listening on") }.map(String.init)
        }
        guard let found else {
            process.waitUntilExit()
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "hearclear-server did not start: \(text)"])
        }
        startLine = found
        let address = found.split(separator: " ").first { $0.hasPrefix("http://") }!.trimmingCharacters(in: CharacterSet(charactersIn: ","))
        url = URL(string: address)!
        // Keep reading the log, so the server never blocks on a full pipe, and keep it for the tests.
        let reader = pipe.fileHandleForReading, output = self.output
        output.append(text)
        Thread {
            while case let data = reader.availableData, !data.isEmpty { output.append(String(decoding: data, as: UTF8.self)) }
            output.close()
        }.start()
    }

    var port: Int { url.port! }
    var pid: Int32 { process.processIdentifier }

    /// Everything the server logged; once it has stopped, all of it.
    var log: String {
        output.text(waitingForEnd: !process.isRunning)
    }

    /// The first log line containing `text`, once the server has logged it (nil if it ends first).
    func logLine(containing text: String) -> String? {
        output.firstLine(containing: text)
    }

    /// Kills the server at once, as a crash or a power cut would.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The server's peak resident memory so far, in kB (VmHWM).
    func peakMemoryKB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit {
        stop()
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

/// Text gathered by a reader thread.
final class LogBuffer: @unchecked Sendable {
    private let condition = NSCondition()
    private var buffer = ""
    private var closed = false

    func append(_ text: String) {
        condition.withLock {
            buffer += text
            condition.broadcast()
        }
    }

    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    func firstLine(containing text: String) -> String? {
        condition.withLock {
            while true {
                if let line = buffer.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
                if closed { return nil }
                condition.wait()
            }
        }
    }

    func text(waitingForEnd: Bool) -> String {
        condition.withLock {
            while waitingForEnd && !closed { condition.wait() }
            return buffer
        }
    }
}

/// Runs the sqlite3 shell on a database and returns its output, trimmed.
func sqlite(_ database: String, _ sql: String) throws -> String {
    let result = try Executable.run(program: URL(fileURLWithPath: "/usr/bin/sqlite3"), [database, sql])
    return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
}

func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearclear-e2e-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
