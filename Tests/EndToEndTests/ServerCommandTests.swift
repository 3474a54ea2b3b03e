import Foundation
import LoopbackHTTP
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `hearclear-server` executable as an operator runs it.
@Suite struct ServerCommandTests {
    let folder: URL

    /// The name of the newest file in Migrations/sqliteite: the schema version a migrated database reports.
    static let latestSchema: String = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Migrations/sqlite")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".sql") }.sorted().last.map { String($0.dropLast(4)) } ?? "?"
    }()

    init() throws {
        folder = try temporaryFolder()
    }

    @Test func migrateCreatesTheSchemaAndSaysWhichVersion() async throws {
        let path = folder.appendingPathComponent("a.sqlite").path
        let result = try await Executable.run("hearclear-server", ["migrate", "--database", path])
        #expect(result.status == 0)
        #expect(result.output.contains("schema \(Self.latestSchema)"))
        // The environment names the database when the option does not.
        let fromEnvironment = folder.appendingPathComponent("b.sqlite").path
        #expect(try await Executable.run("hearclear-server", ["migrate"], environment: ["HEARCLEAR_DATABASE": fromEnvironment]).status == 0)
        #expect(FileManager.default.fileExists(atPath: fromEnvironment))
    }

    @Test func aBadConfigFileStopsTheServerWithAReason() async throws {
        let config = folder.appendingPathComponent("config.json")
        try Data(#"{"scale": {"unit": "dBA", "bands": []}, "max_body_bytez": 1}"#.utf8).write(to: config)
        let result = try await Executable.run(
            "hearclear-server", ["serve", "--port", "0", "--database", folder.appendingPathComponent("c.sqlite").path, "--config", config.path])
        #expect(result.status != 0)
        #expect(result.errors.contains("unknown key \"max_body_bytez\""))
    }

    @Test func aBusyPortIsSaidInWords() async throws {
        let first = try ServerProcess(database: folder.appendingPathComponent("e.sqlite").path)
        let second = try await Executable.run(
            "hearclear-server", ["serve", "--port", "\(first.port)", "--database", folder.appendingPathComponent("f.sqlite").path])
        #expect(second.status != 0)
        #expect(second.errors.contains("port \(first.port) on 127.0.0.1 is already in use"), "\(second.errors)")
        #expect(!second.errors.contains("errno"))
    }

    @Test func aDatabaseThatCannotBeOpenedIsNamed() async throws {
        let path = folder.appendingPathComponent("no-such-folder/g.sqlite").path
        for command in [["serve", "--port", "0"], ["migrate"], ["verify"]] {
            let result = try await Executable.run("hearclear-server", command + ["--database", path])
            #expect(result.status != 0)
            #expect(result.errors.contains("cannot open the database \(path)"), "\(command): \(result.errors)")
            #expect(!result.errors.contains("SQLite error 14"))
        }
    }

    @Test func pruneDropsOldSamplesAndVerifyStillPasses() async throws {
        let path = folder.appendingPathComponent("h.sqlite").path
        #expect(try await Executable.run("hearclear-server", ["seed", "--demo", "--database", path]).status == 0)
        let samples = try await sqlite(path, "SELECT COUNT(*) FROM sample")
        #expect(try await Executable.run("hearclear-server", ["prune", "--database", path]).errors.contains("--days N, or retention_days in the config file"))
        let pruned = try await Executable.run("hearclear-server", ["prune", "--days", "7", "--database", path])
        #expect(pruned.status == 0, "\(pruned.errors)")
        #expect(pruned.output.contains("dropped the samples of"), "\(pruned.output)")
        #expect(Int(try await sqlite(path, "SELECT COUNT(*) FROM sample"))! < Int(samples)!)
        #expect(try await sqlite(path, "SELECT COUNT(*) FROM checkin WHERE samples_pruned_at IS NOT NULL AND started_at > strftime('%s', 'now') - 7 * 86400") == "0")
        let verified = try await Executable.run("hearclear-server", ["verify", "--database", path])
        #expect(verified.status == 0, "\(verified.output)")
    }

    @Test func serveAnnouncesItselfAndAnswers() async throws {
        let server = try ServerProcess(database: folder.appendingPathComponent("d.sqlite").path)
        #expect(server.startLine.contains("d.sqlite") && server.startLine.contains("schema \(Self.latestSchema)"))
        let (body, response) = try await URLSession.shared.data(from: server.url.appendingPathComponent("healthz"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == "ok")
    }
}
