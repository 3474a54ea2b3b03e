import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `hearclear-server` executable as an operator runs it.
@Suite struct ServerCommandTests {
    static let executable = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/debug/hearclear-server")

    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearclear-command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func migrateCreatesTheSchemaAndSaysWhichVersion() throws {
        let path = folder.appendingPathComponent("a.sqlite").path
        let result = try run(["migrate", "--database", path])
        #expect(result.status == 0)
        #expect(result.output.contains("schema 0001_initial"))
        // The environment names the database when the option does not.
        let fromEnvironment = folder.appendingPathComponent("b.sqlite").path
        #expect(try run(["migrate"], environment: ["HEARCLEAR_DATABASE": fromEnvironment]).status == 0)
        #expect(FileManager.default.fileExists(atPath: fromEnvironment))
    }

    @Test func aBadConfigFileStopsTheServerWithAReason() throws {
        let config = folder.appendingPathComponent("config.json")
        try Data(#"{"scale": {"unit": "dBA", "bands": []}, "max_body_bytez": 1}"#.utf8).write(to: config)
        let result = try run(["serve", "--port", "0", "--database", folder.appendingPathComponent("c.sqlite").path, "--config", config.path])
        #expect(result.status != 0)
        #expect(result.output.contains("unknown key \"max_body_bytez\""))
    }

    @Test func serveAnnouncesItselfAndAnswers() async throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--port", "0", "--database", folder.appendingPathComponent("d.sqlite").path]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // Read the log until the start line names the address (or the process ends).
        let reader = pipe.fileHandleForReading
        let startLine: String? = await Task.detached {
            var text = ""
            while true {
                let data = reader.availableData
                if data.isEmpty { return nil }
                text += String(decoding: data, as: UTF8.self)
                if let line = text.split(separator: "\n").first(where: { $0.contains("HearClear server listening on") }) {
                    return String(line)
                }
            }
        }.value
        let line = try #require(startLine)
        #expect(line.contains("d.sqlite") && line.contains("schema 0001_initial"))
        let address = try #require(line.split(separator: " ").first { $0.hasPrefix("http://") }).trimmingCharacters(in: .punctuationCharacters.subtracting(["/", ":"]))
        let (body, response) = try await URLSession.shared.data(from: URL(string: "\(address)/healthz")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == "ok")
        process.terminate()
        process.waitUntilExit()
    }
}
