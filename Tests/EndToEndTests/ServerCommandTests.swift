import Foundation
import LoopbackHTTP
import TestCluster
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `hearclear-server` executable as an operator runs it.
@Suite struct ServerCommandTests {
    let folder: URL

    /// The name of the newest file in Migrations/sqlite or Migrations/postgres: the schema version a
    /// migrated database reports.
    static func latestSchema(_ store: StoreKind) -> String {
        let folder = Executable.packageFolder.appendingPathComponent("Migrations/\(store == .sqlite ? "sqlite" : "postgres")")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".sql") }.sorted().last.map { String($0.dropLast(4)) } ?? "?"
    }

    init() throws {
        folder = try temporaryFolder()
    }

    @Test(arguments: StoreKind.allCases) func migrateCreatesTheSchemaAndSaysWhichVersion(store: StoreKind) async throws {
        let database = try await ServerDatabase(store, named: "a", in: folder)
        let result = try await Executable.run("hearclear-server", ["migrate", "--database", database.location])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("schema \(Self.latestSchema(store))"), "\(result.output)")
        // The environment names the database when the option does not.
        let fromEnvironment = try await ServerDatabase(store, named: "b", in: folder)
        #expect(try await Executable.run("hearclear-server", ["migrate"], environment: ["HEARCLEAR_DATABASE": fromEnvironment.location]).status == 0)
        #expect(try await fromEnvironment.query("SELECT COUNT(*) FROM venue") == "0")
    }

    /// Was 0644, as the umask left it: every device's check-ins (where and when it measured) and
    /// the admin sessions, readable by every user of the machine; its backups too.
    @Test func theDatabaseAndItsBackupsAreTheServersAlone() async throws {
        let path = folder.appendingPathComponent("private.sqlite").path
        #expect(try await Executable.run("hearclear-server", ["seed", "--demo", "--database", path]).status == 0)
        let copy = folder.appendingPathComponent("copy.sqlite").path
        let backup = try await Executable.run("hearclear-server", ["backup", copy, "--database", path])
        #expect(backup.status == 0, "\(backup.errors)")
        for file in [path, copy] + ["-wal", "-shm"].map({ path + $0 }).filter({ FileManager.default.fileExists(atPath: $0) }) {
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600, "\(file)")
        }
    }

    /// Was: `verify` said "`hearclear-server rebuild` repairs derived data" of a damaged samples
    /// blob too, which rebuild refuses: no command makes raw samples again.
    @Test func verifySaysWhatNoRebuildCanRepair() async throws {
        let path = folder.appendingPathComponent("damaged.sqlite").path
        #expect(try await Executable.run("hearclear-server", ["seed", "--demo", "--database", path]).status == 0)
        _ = try await sqlite(path, "UPDATE checkin SET sample_columns = x'01c80100' WHERE seq = (SELECT min(seq) FROM checkin WHERE sample_columns IS NOT NULL)")
        let verified = try await Executable.run("hearclear-server", ["verify", "--database", path])
        #expect(verified.status != 0)
        #expect(verified.output.contains("1 difference; the samples of 1 check-in are damaged or missing: restore the database from a backup"), "\(verified.output)")
        #expect(!verified.output.contains("rebuild` repairs"), "\(verified.output)")
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
        let first = try await ServerProcess(database: folder.appendingPathComponent("e.sqlite").path)
        let second = try await Executable.run(
            "hearclear-server", ["serve", "--port", "\(first.port)", "--database", folder.appendingPathComponent("f.sqlite").path])
        #expect(second.status != 0)
        #expect(second.errors.contains("port \(first.port) on 127.0.0.1 is already in use"), "\(second.errors)")
        #expect(!second.errors.contains("errno"))
    }

    /// Was: "port 8182 on 127.0.0.1 is already in use (another hearclear-server?)", when the
    /// metrics listener had only been given the API's own port.
    @Test func theMetricsPortMustDifferFromTheAPIPort() async throws {
        let result = try await Executable.run(
            "hearclear-server", ["serve", "--port", "8182", "--metrics-port", "8182", "--database", folder.appendingPathComponent("m.sqlite").path])
        #expect(result.status != 0)
        #expect(result.errors.contains("--metrics-port must differ from the API's port (8182)"), "\(result.errors)")
        #expect(!result.errors.contains("already in use"), "\(result.errors)")
    }

    @Test func aDatabaseThatCannotBeOpenedIsNamed() async throws {
        let path = folder.appendingPathComponent("no-such-folder/g.sqlite").path
        for command in [["serve", "--port", "0"], ["migrate"], ["seed", "--demo"]] {
            let result = try await Executable.run("hearclear-server", command + ["--database", path])
            #expect(result.status != 0)
            #expect(result.errors.contains("cannot open the database \(path)"), "\(command): \(result.errors)")
            #expect(!result.errors.contains("SQLite error 14"))
        }
    }

    /// The commands that read a store refuse a SQLite path with nothing there: a mistyped path made a
    /// new, empty database, which `verify` called ok, `rebuild` rebuilt and `backup` copied — an
    /// operator's backup of nothing. No file is left behind. `migrate`, `seed` and `serve` still create one.
    @Test func maintenanceCommandsRefuseADatabaseThatIsNotThere() async throws {
        let missing = folder.appendingPathComponent("hearclear.sqllite").path
        for arguments in [["verify"], ["rebuild"], ["prune", "--days", "30"], ["backup", folder.appendingPathComponent("copy.sqlite").path], ["evaluate"]] {
            let result = try await Executable.run("hearclear-server", arguments + ["--database", missing])
            #expect(result.status != 0, "\(arguments): \(result.output)")
            #expect(result.errors.contains("there is no database at \(missing)"), "\(arguments): \(result.errors)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "\(arguments)")
        }
        #expect(try await Executable.run("hearclear-server", ["migrate", "--database", missing]).status == 0)
        #expect(try await Executable.run("hearclear-server", ["verify", "--database", missing]).status == 0)
    }

    /// Was: what went wrong while a command ran (no database at the path, a backup file there
    /// already, the environment's settings) was followed by "Usage: hearclear-server
    /// <subcommand>" and exit status 64, as if the command line were wrong; and a metrics port
    /// in the environment that is no number was ignored, the metrics silently off. A command
    /// line that is wrong is followed by the command's own usage.
    @Test func whatStopsACommandWhileItRunsIsSaidAlone() async throws {
        let database = folder.appendingPathComponent("alone.sqlite").path
        #expect(try await Executable.run("hearclear-server", ["migrate", "--database", database]).status == 0)
        let missing = folder.appendingPathComponent("missing.sqlite").path
        // Were the environment's setting ignored, `serve` would stop at this database, in other words.
        let unopenable = folder.appendingPathComponent("no-such-folder/serve.sqlite").path
        let running: [([String], [String: String], String)] = [
            (["verify", "--database", missing], [:], "there is no database at \(missing)"),
            (["backup", database, "--database", database], [:], "\(database) exists already"),
            (["prune", "--database", database], [:], "say how many days of samples to keep"),
            (["serve", "--database", unopenable], ["HEARCLEAR_PORT": "http"], "HEARCLEAR_PORT=http is not a port number"),
            (["serve", "--port", "0", "--database", unopenable], ["HEARCLEAR_METRICS_PORT": "nine"], "HEARCLEAR_METRICS_PORT=nine is not a port number"),
            (["serve", "--port", "0", "--database", unopenable], ["HEARCLEAR_RATE_LIMIT": "-1"], "HEARCLEAR_RATE_LIMIT must be 0"),
        ]
        for (arguments, environment, words) in running {
            let result = try await Executable.run("hearclear-server", arguments, environment: environment)
            #expect(result.status == 1 && result.errors.contains(words) && !result.errors.contains("Usage:"), "\(arguments): \(result.status) \(result.errors)")
        }
        let wrong: [([String], String)] = [
            (["prune", "--days", "0", "--database", database], "Usage: hearclear-server prune"),
            // Was: "Missing value for '--days <days>'", as if no number had been given.
            (["prune", "--days", "-3", "--database", database], "--days must be at least 1"),
            (["serve", "--port", "70000", "--database", database], "Usage: hearclear-server serve"),
            (["copy", "--from", database, "--to", missing], "Usage: hearclear-server copy"),
        ]
        for (arguments, usage) in wrong {
            let result = try await Executable.run("hearclear-server", arguments)
            #expect(result.status == 64 && result.errors.contains(usage), "\(arguments): \(result.status) \(result.errors)")
        }
    }

    /// seed, prune, verify and rebuild, as an operator runs them on either store.
    @Test(arguments: StoreKind.allCases) func pruneDropsOldSamplesAndVerifyStillPasses(store: StoreKind) async throws {
        let database = try await ServerDatabase(store, named: "h", in: folder)
        let path = database.location
        #expect(try await Executable.run("hearclear-server", ["seed", "--demo", "--database", path]).status == 0)
        let samples = try await database.query(ServerDatabase.storedSeconds)
        #expect(try await Executable.run("hearclear-server", ["prune", "--database", path]).errors.contains("--days N, or retention_days in the config file"))
        let pruned = try await Executable.run("hearclear-server", ["prune", "--days", "7", "--database", path])
        #expect(pruned.status == 0, "\(pruned.errors)")
        #expect(pruned.output.contains("dropped the samples of") && pruned.output.hasSuffix(" older than 7 days\n"), "\(pruned.output)")
        #expect(Int(try await database.query(ServerDatabase.storedSeconds))! < Int(samples)!)
        #expect(try await database.query("SELECT COUNT(*) FROM checkin WHERE samples_pruned_at IS NOT NULL AND started_at > \(database.secondsAgo(7 * 86400))") == "0")
        let verified = try await Executable.run("hearclear-server", ["verify", "--database", path])
        #expect(verified.status == 0, "\(verified.output)")
        // A tampered aggregate is found, and rebuild derives it again from what prune kept.
        _ = try await database.query("UPDATE loudness SET energy = energy * 2")
        #expect(try await Executable.run("hearclear-server", ["verify", "--database", path]).status != 0)
        let rebuilt = try await Executable.run("hearclear-server", ["rebuild", "--database", path])
        #expect(rebuilt.status == 0, "\(rebuilt.errors)")
        #expect(try await Executable.run("hearclear-server", ["verify", "--database", path]).status == 0)
        // Was: "older than 1 days".
        #expect(try await Executable.run("hearclear-server", ["prune", "--days", "1", "--database", path]).output.hasSuffix(" older than 1 day\n"))
    }

    /// `evaluate` on the demo, on both stores: the same check-ins give the same figures; an empty
    /// database is too few, said so, exit 1; a bad estimates parameter stops it with a reason.
    @Test(arguments: StoreKind.allCases) func evaluateMeasuresTheEstimatesOnTheDemo(store: StoreKind) async throws {
        let database = try await ServerDatabase(store, named: "e", in: folder)
        #expect(try await Executable.run("hearclear-server", ["migrate", "--database", database.location]).status == 0)
        let empty = try await Executable.run("hearclear-server", ["evaluate", "--database", database.location])
        #expect(empty.status == 1 && empty.output.contains("too few to evaluate"), "\(empty.output)")
        #expect(try await Executable.run("hearclear-server", ["seed", "--demo", "--database", database.location]).status == 0)
        let result = try await Executable.run("hearclear-server", ["evaluate", "--database", database.location])
        #expect(result.status == 0, "\(result.errors)")
        let counted = try await database.query("SELECT COUNT(*) FROM checkin WHERE status = 'accepted'")
        #expect(result.output.contains("\(counted) check-ins in 10 folds"), "\(result.output)")
        for row in ["estimate", "venue's level", "kind's hour"] {
            #expect(result.output.contains("  \(row.padding(toLength: 18, withPad: " ", startingAt: 0)) "), "\(result.output)")
        }
        #expect(result.output.contains(" the better baseline's (the "), "\(result.output)")
        let config = folder.appendingPathComponent("estimates.json")
        try Data(#"{"estimates": {"similar_day_weight": 2}}"#.utf8).write(to: config)
        let refused = try await Executable.run("hearclear-server", ["evaluate", "--database", database.location, "--config", config.path])
        #expect(refused.status != 0 && refused.errors.contains("similar_day_weight"), "\(refused.errors)")
    }

    @Test(arguments: StoreKind.allCases) func serveAnnouncesItselfAndAnswers(store: StoreKind) async throws {
        let database = try await ServerDatabase(store, named: "d", in: folder)
        let server = try await ServerProcess(database: database)
        let named = store == .sqlite ? "d.sqlite" : String(database.location.split(separator: "/").last ?? "?")
        #expect(server.startLine.contains(named) && server.startLine.contains("schema \(Self.latestSchema(store))"), "\(server.startLine)")
        let (body, response) = try await URLSession.shared.data(from: server.url.appendingPathComponent("healthz"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == "ok")
    }
}
