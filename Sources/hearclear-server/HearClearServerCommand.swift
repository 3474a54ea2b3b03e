import ArgumentParser
import Foundation
import HearClearAnalysis
import HearClearCore
import HearClearServer
import Logging
import Metrics
import Prometheus

@main
struct HearClearServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearclear-server",
        abstract: "The HearClear server: venue loudness from crowd-sourced measurements (APIs v1 and v2 over SQLite or PostgreSQL).",
        subcommands: [Serve.self, Migrate.self, Seed.self, Verify.self, Rebuild.self, Backup.self, Prune.self, Copy.self, Evaluate.self],
        defaultSubcommand: Serve.self)
}

/// `--database`, shared by every subcommand that touches data.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A SQLite file, or postgres://user:password@host:port/database (env HEARCLEAR_DATABASE; default hearclear.sqlite).",
            valueName: "path-or-url"))
    var database: String?

    var location: DatabaseLocation {
        get throws { try DatabaseLocation(database ?? ProcessInfo.processInfo.environment["HEARCLEAR_DATABASE"] ?? "hearclear.sqlite") }
    }

    /// `location`, for the commands that read a store rather than start one: a SQLite path with
    /// nothing there is refused. Opening it made a new, empty database, so a mistyped path was
    /// "ok" to `verify` and copied by `backup`: a backup of nothing.
    var existingLocation: DatabaseLocation {
        get throws {
            let location = try location
            if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
                throw StartFailure(description: "there is no database at \(path): check the path (serve, migrate and seed make a new one)")
            }
            return location
        }
    }

    /// Opens and migrates the store, runs `body` on it and closes it; a new SQLite file only when
    /// `creating` (`existingLocation`).
    func withStore<Result>(creating: Bool = false, _ body: (any MaintainedStore) async throws -> Result) async throws -> Result {
        var logger = Logger(label: "hearclear-server")
        logger.logLevel = .warning
        let opened = try await OpenedStore.open(try creating ? location : existingLocation, logger: logger)
        do {
            let result = try await body(opened.store)
            opened.close()
            return result
        } catch {
            opened.close()
            throw error
        }
    }
}

extension HearClearServerCommand {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Migrate the database and serve the API (the default).")

        @Option(help: "Address to listen on (env HEARCLEAR_HOSTNAME; default 127.0.0.1).")
        var hostname: String?

        @Option(help: "Port to listen on; 0 picks a free one (env HEARCLEAR_PORT; default 8080).")
        var port: Int?

        @OptionGroup var database: DatabaseOptions

        @Option(help: ArgumentHelp("JSON file with the label scale, limits, default calibration and admin password (env HEARCLEAR_CONFIG).", valueName: "path"))
        var config: String?

        @Option(help: ArgumentHelp("Folder of the static files (default: ./Public, else the installed share/hearclear/Public).", valueName: "path"))
        var publicFolder: String?

        @Option(help: "Log lines as text or json (env HEARCLEAR_LOG_FORMAT; default text). LOG_LEVEL sets the level (default info).")
        var logFormat: LogFormat?

        @Option(help: "Serve GET /metrics (Prometheus) on this port, same hostname, off the API's listener (env HEARCLEAR_METRICS_PORT; default: off).")
        var metricsPort: Int?

        func validate() throws {
            for (option, value) in [("--port", port), ("--metrics-port", metricsPort)] {
                if let value, !Self.ports.contains(value) { throw ValidationError("\(option) must be between 0 and 65535") }
            }
        }

        private static let ports = 0...65535

        /// A port the environment gives, refused in words when it is none: ignored, a metrics
        /// port that is no number left the metrics off without a word.
        private static func port(_ name: String, in environment: [String: String]) throws -> Int? {
            guard let text = environment[name] else { return nil }
            guard let port = Int(text), ports.contains(port) else {
                throw StartFailure(description: "\(name)=\(text) is not a port number from 0 to 65535")
            }
            return port
        }

        // What the environment gets wrong is a StartFailure, said alone: ArgumentParser follows a
        // ValidationError with the program's usage, which is for a command line that is wrong.
        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            var configuration = ServerConfiguration(database: try database.location)
            configuration.hostname = hostname ?? environment["HEARCLEAR_HOSTNAME"] ?? configuration.hostname
            if let port = try port ?? Self.port("HEARCLEAR_PORT", in: environment) { configuration.port = port }
            if let path = config ?? environment["HEARCLEAR_CONFIG"] {
                configuration.settings = try ServerSettings.load(contentsOf: path)
            }
            if let text = environment["HEARCLEAR_RATE_LIMIT"] {
                guard let limit = Int(text), limit >= 0 else { throw StartFailure(description: "HEARCLEAR_RATE_LIMIT must be 0 (off) or writes a minute per device") }
                configuration.settings.rateLimit = limit
            }
            if let password = environment["HEARCLEAR_ADMIN_PASSWORD"], !password.isEmpty {
                if let problem = ServerSettings.adminPasswordProblem(password) { throw StartFailure(description: "HEARCLEAR_ADMIN_PASSWORD \(problem)") }
                configuration.settings.adminPassword = password
            }
            configuration.publicFolder = publicFolder ?? Self.defaultPublicFolder()
            guard let format = logFormat ?? environment["HEARCLEAR_LOG_FORMAT"].map({ LogFormat(rawValue: $0) }) ?? .text else {
                throw StartFailure(description: "HEARCLEAR_LOG_FORMAT must be text or json")
            }
            if let port = try metricsPort ?? Self.port("HEARCLEAR_METRICS_PORT", in: environment) {
                // Else the second listener finds its port taken, which reads like another server.
                guard port == 0 || port != configuration.port else {
                    throw StartFailure(description: "--metrics-port must differ from the API's port (\(port)): metrics are served on a listener of their own")
                }
                let registry = PrometheusCollectorRegistry()
                MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
                configuration.metrics = (port, registry)
            }
            let level = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            let writer = BufferedLogWriter()
            LoggingSystem.bootstrap { label in
                var handler = HearClearLogHandler(label: label, format: format, writer: writer)
                handler.logLevel = level
                return handler
            }
            // Whatever ends the server, every line logged reaches its destination.
            defer { writer.flush() }
            try await serve(configuration, logger: Logger(label: "hearclear"))
        }

        /// `Public` in the working directory (a checkout), else where `make install` puts it, else
        /// the package's own when running from its build folder.
        static func defaultPublicFolder() -> String {
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            let candidates = [
                URL(fileURLWithPath: "Public"),
                executable.appendingPathComponent("../share/hearclear/Public"),
                // .build/<triple>/debug/hearclear-server in a checkout
                executable.appendingPathComponent("../../../Public"),
            ]
            return (candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("admin.css").path) } ?? candidates[0])
                .standardizedFileURL.path
        }
    }

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Apply the migrations the database lacks, then exit.")

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            var logger = Logger(label: "hearclear-server")
            logger.logLevel = .warning
            let opened = try await OpenedStore.open(try database.location, logger: logger)
            opened.close()
            print("\(try database.location): schema \(opened.schemaVersion)")
        }
    }

    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fill an empty database with a realistic demo, so the admin pages have something to show.")

        @Flag(help: "The demo: 36 venues in Sydney, London and New York, 6 devices, a few weeks of check-ins.")
        var demo = false

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard demo else { throw ValidationError("say what to seed: --demo") }
        }

        func run() async throws {
            let summary = try await database.withStore(creating: true) { store in
                try await DemoData.seed(into: store, defaultCalibrationDB: Level.defaultCalibrationDB, now: Date())
            }
            print("\(try database.location): seeded \(summary.venues) venues, \(summary.devices) devices, \(summary.checkIns) check-ins.")
            // The server's address is its own options', which seeding does not know: say the default and where it changes.
            print("Serve it with HEARCLEAR_ADMIN_PASSWORD set (at least 8 characters), then open /venues (public) and /admin (user admin)"
                + " at the server's address: http://127.0.0.1:8080 unless --hostname or --port say otherwise.")
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Recompute everything derived from the raw rows and report differences (exit 1 on any).",
            discussion: "Checks SQLite's integrity (on SQLite), each check-in's spikes, level and per-hour sums, every status and every cell.")

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let differences = try await database.withStore { store in try await store.verify() }
            for difference in differences { print(difference) }
            let name = try database.location
            let lost = differences.count { $0.hasSuffix(Analysis.lostSamples) }
            print(
                differences.isEmpty ? "\(name): ok"
                    : lost > 0
                        ? "\(name): \(differences.count.counted("difference")); the samples of \(lost.counted("check-in")) are damaged or missing: restore the database from a backup (rebuild stops at them)"
                        : "\(name): \(differences.count.counted("difference")); `hearclear-server rebuild` repairs derived data")
            if !differences.isEmpty { throw ExitCode.failure }
        }
    }

    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Derive every check-in's analysis, the outlier decisions and the loudness cache again from the raw rows.")

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await database.withStore { store in try await store.rebuild() }
            print("\(try database.location): rebuilt")
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Drop the raw samples of check-ins older than the retention (what `serve` does daily when retention_days is set).",
            discussion: "Each check-in keeps its level and per-hour sums, so no answer changes and `verify` still passes.")

        // Unconditional: "--days -3" is a wrong number of days, not a missing one.
        @Option(parsing: .unconditional, help: "Keep this many days of samples (default: retention_days of the config file).")
        var days: Int?

        @Option(help: ArgumentHelp("The server's JSON config file (env HEARCLEAR_CONFIG).", valueName: "path"))
        var config: String?

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            if let days, days < 1 { throw ValidationError("--days must be at least 1") }
        }

        func run() async throws {
            let settings = try (config ?? ProcessInfo.processInfo.environment["HEARCLEAR_CONFIG"]).map(ServerSettings.load(contentsOf:))
            guard let days = days ?? settings?.retentionDays else {
                throw StartFailure(description: "say how many days of samples to keep: --days N, or retention_days in the config file")
            }
            let pruned = try await database.withStore { store in
                try await store.pruneSamples(startedBefore: Date().addingTimeInterval(-Double(days) * 86_400), at: Date())
            }
            print("\(try database.location): dropped the samples of \(pruned.counted("check-in")) older than \(days.counted("day"))")
        }
    }

    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a consistent copy of the database, safe while the server runs.",
            discussion: "SQLite: VACUUM INTO, a self-contained SQLite file. PostgreSQL: pg_dump --format=custom (restore with pg_restore).")

        @Argument(help: "Where to write the copy; must not exist yet.")
        var path: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            guard !FileManager.default.fileExists(atPath: path) else { throw StartFailure(description: "\(path) exists already: choose a new file") }
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw StartFailure(description: "cannot write \(path): there is no folder \(folder)")
            }
            let location = try database.existingLocation
            // Made empty first, as private as the database it copies (both VACUUM INTO and pg_dump
            // write into an empty file and keep its mode); nothing is left of a failed copy.
            let file = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard file >= 0 else { throw StartFailure(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
            close(file)
            do {
                switch location {
                case .sqlite(let source): try SQLiteDatabase.backup(path: source, to: path)
                case .postgres(let address): try PostgresBackup.dump(address, to: path)
                }
            } catch {
                unlink(path)
                throw error
            }
            print("\(try database.location) copied to \(path)")
        }
    }
}

extension HearClearServerCommand {
    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move a deployment from its SQLite file to PostgreSQL, then verify the copy.",
            discussion: """
                Copies every venue, device (their tokens keep working), check-in, sample, ban, mark, calibration and venue \
                history in one transaction. The SQLite file is only read, from one snapshot. A target that holds data is \
                refused unless --force, which empties it first. Exits 1 when `verify` finds a difference on the target.
                """)

        @Option(help: ArgumentHelp("The SQLite file to copy (it is not modified).", valueName: "path"))
        var from: String

        @Option(help: ArgumentHelp("The PostgreSQL database to copy into: postgres://user:password@host:port/database.", valueName: "url"))
        var to: String

        @Flag(help: "Empty the target first when it holds data.")
        var force = false

        private var target: PostgresAddress {
            get throws {
                guard case .postgres(let address) = try DatabaseLocation(to) else {
                    throw ValidationError("--to must be a postgres:// URL: copy moves a SQLite deployment to PostgreSQL")
                }
                return address
            }
        }

        func validate() throws {
            _ = try target
        }

        func run() async throws {
            let address = try target
            var logger = Logger(label: "hearclear-server")
            logger.logLevel = .warning
            let target = try await OpenedStore.openPostgres(address, logger: logger)
            defer { target.opened.close() }
            let summary: DeploymentCopy.Summary
            do {
                summary = try await DeploymentCopy.copy(from: from, to: target.repository, force: force, logger: logger)
            } catch let refusal as DeploymentCopy.Refusal {
                throw StartFailure(description: refusal.description)
            } catch {
                // postgres-nio's errors say what went wrong only when reflected.
                throw StartFailure(description: "the copy failed and the target is as it was: \(String(reflecting: error))")
            }
            print("\(from) → \(address): \(summary.venues) venues, \(summary.devices) devices, \(summary.checkIns) check-ins, \(summary.samples) samples")
            let differences = try await target.repository.verify()
            for difference in differences { print(difference) }
            print(differences.isEmpty ? "\(address): verify ok" : "\(address): \(differences.count.counted("difference")) after the copy")
            if !differences.isEmpty { throw ExitCode.failure }
        }
    }
}

extension LogFormat: ExpressibleByArgument {}

extension HearClearServerCommand {
    struct Evaluate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure how well the estimates for unmeasured hours predict check-ins they were not shown.",
            discussion: """
                Splits the counting check-ins into folds; predicts each fold's levels from the others, by the estimates and by two \
                baselines (the venue's level at any hour; the same weekday and hour at venues of the same kind), and reports each \
                one's mean absolute error and how many levels fell inside its interval (docs/analysis.md, "Estimates for the hours nobody measured").
                """)

        @Option(help: "Folds of check-ins (each predicted from the others).")
        var folds = 10

        @Option(help: ArgumentHelp("Evaluate on synthetic check-ins from a known truth, drawn with this seed, instead of a database.", valueName: "seed"))
        var synthetic: UInt64?

        @Option(help: ArgumentHelp("The server's JSON config file, for its estimates parameters (env HEARCLEAR_CONFIG).", valueName: "path"))
        var config: String?

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard folds >= 2 else { throw ValidationError("--folds must be at least 2") }
        }

        func run() async throws {
            let parameters = try (config ?? ProcessInfo.processInfo.environment["HEARCLEAR_CONFIG"]).map(ServerSettings.load(contentsOf:))?.estimates ?? .standard
            let observations: [HourObservation<Int64>]
            let source: String
            var truthError: Double?
            if let synthetic {
                let data = SyntheticVenues(seed: synthetic)
                observations = data.observations.map {
                    HourObservation(venue: $0.venue, kind: $0.kind, checkIn: Int64($0.checkIn), hour: $0.hour, level: $0.level)
                }
                truthError = data.observations.reduce(0) { $0 + abs($1.level - data.truth[$1.venue]![$1.hour.weekday * 24 + $1.hour.hour]) }
                    / Double(data.observations.count)
                source = "synthetic check-ins (seed \(synthetic): \(data.truth.count) venues, 6 kinds)"
            } else {
                observations = try await database.withStore { store in try await store.hourObservations() }
                source = "\(try database.location)"
            }
            let evaluation = EstimateEvaluation(observations: observations, parameters: parameters, folds: folds)
            guard evaluation.predicted > 0 else {
                print("\(source): \(evaluation.checkIns.counted("counting check-in")): too few to evaluate (each needs others at its venue, and at venues of its kind at its hour)")
                throw ExitCode.failure
            }
            let percent = Int((HourEstimates.coverage * 100).rounded())
            print("\(source): \(evaluation.checkIns) check-ins in \(evaluation.folds) folds")
            print("\(evaluation.predicted) levels predicted; \(evaluation.unpredicted) left out (no other check-in at the venue, or none of its kind at that hour)")
            print("")
            print("                      mean error   inside the \(percent) % interval")
            for (name, score) in [("estimate", evaluation.model), ("venue's level", evaluation.venueLevel), ("kind's hour", evaluation.kindHour)] {
                print("  " + name.padding(toLength: 18, withPad: " ", startingAt: 0) + String(format: " %6.2f dB     %5.1f %%", score.meanAbsoluteError, score.coverage * 100))
            }
            print("")
            print(evaluation.comparison)
            if let truthError {
                print(String(format: "The truth itself, against the noisy check-ins, errs by %.2f dB.", truthError))
            }
        }
    }
}
