import Foundation
import GRDB
import HearClearAnalysis
import HearClearClient
import HearClearCore
import HearClearServer
import LoopbackHTTP

/// How big each case is: `full` for `make bench`, `tiny` so `make test` runs every case in seconds.
struct Size: Codable {
    var runs: Int
    var ingestCheckIns: Int
    var queryVenues: Int
    var queryCheckIns: Int
    var smallQueryCheckIns: Int
    var wrkSeconds: Int
    var meterSeconds: Int
    var longCheckInSeconds: Int
    var shortCheckInSeconds: Int
    /// The growth case: check-ins stored before each measurement, over how many venues, the uploads
    /// that warm a newly started server before each measurement, and the uploads it measures. A
    /// step's rounds upload `runs × (growthWarmUploads + growthUploads)` check-ins, fewer than the
    /// next step adds, so that each step holds the check-ins it is named for.
    var growthCheckIns: [Int]
    var growthVenues: Int
    var growthWarmUploads: Int
    var growthUploads: Int
    /// A SQLite file or PostgreSQL database an earlier growth run filled: the case then measures
    /// one step, over a copy of it.
    var growthFrom: String? = nil

    static let full = Size(
        runs: 3, ingestCheckIns: 3_200, queryVenues: 10_000, queryCheckIns: 100_000, smallQueryCheckIns: 1_000, wrkSeconds: 10,
        meterSeconds: 3_600, longCheckInSeconds: 7_200, shortCheckInSeconds: 300, growthCheckIns: [10_000, 100_000, 1_000_000], growthVenues: 10_000,
        growthWarmUploads: 1_600, growthUploads: 1_600)
    static let tiny = Size(
        runs: 1, ingestCheckIns: 64, queryVenues: 20, queryCheckIns: 200, smallQueryCheckIns: 50, wrkSeconds: 1,
        meterSeconds: 5, longCheckInSeconds: 60, shortCheckInSeconds: 10, growthCheckIns: [40, 80], growthVenues: 20, growthWarmUploads: 4,
        growthUploads: 8)
}

struct Cases {
    let size: Size
    let work: URL
    let binaries: URL
    /// A PostgreSQL cluster's `postgres` database (scripts/test-postgres.sh start), where the
    /// PostgreSQL cases make databases of their own; nil: those cases are left out.
    var postgres: String? = nil

    var hearclear: String { binaries.appendingPathComponent("hearclear").path }

    // MARK: Shared

    /// A session's levels like a venue's: a slow random walk around a room level, peaks above it;
    /// speech and music drifting as a room's sound does. Every series the client sends.
    static func checkIn(_ random: inout SplitMix64, venue: String, seconds: Int, start: Date) -> CheckIn {
        var level = -48 + random.uniform(-6, 6)
        var speech = random.uniform(), music = random.uniform()
        let samples = (0..<seconds).map { second -> Sample in
            level = min(-20, max(-70, level + random.uniform(-0.8, 0.8)))
            speech = min(1, max(0, speech + random.uniform(-0.08, 0.08)))
            music = min(1, max(0, music + random.uniform(-0.05, 0.05)))
            // What the meter adds to each second, in plausible relations to the A level.
            let details = LevelDetails(
                fastMax: level + random.uniform(0.5, 4), cAvg: level + random.uniform(2, 9),
                octaves: (0..<4).map { _ in level - random.uniform(2, 10) })
            return Sample(
                t: Double(second), avg: level, peak: min(0, level + random.uniform(8, 16)), details: details,
                classes: SoundClasses(speech: speech, music: music)
            ).roundedForUpload
        }
        // Time-ordered at its start, as the client makes a check-in's id.
        return CheckIn(id: UUID(timeOrderedAt: start, using: &random), venueID: venue, startedAt: start, calibrationDB: 110, samples: samples)
    }

    static func request(_ method: String, _ path: String, token: String?, body: Data, gzipped: Bool = false) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if gzipped { head += "Content-Encoding: gzip\r\n" }
        return Array((head + "\r\n").utf8) + Array(body)
    }

    /// Registers a device through the API; returns its token.
    func registerDevice(port: Int, model: String = "bench") throws -> String {
        let connection = try LoopbackConnection(port: port)
        let body = try JSONEncoder().encode(DeviceRegistration(model: model, platform: "linux"))
        let registered = try connection.exchange(Self.request("POST", "/api/v1/devices", token: nil, body: body))
        guard registered.status == 201, let credentials = try? JSONDecoder().decode(DeviceCredentials.self, from: registered.body) else {
            throw Measure.Failure(description: "cannot register a device (\(registered.status))")
        }
        return credentials.token
    }

    /// Registers a device and creates the venues through the API; returns the token.
    func prepare(server: ServerProcess, venues: Int) throws -> String {
        let token = try registerDevice(port: server.port)
        let connection = try LoopbackConnection(port: server.port)
        for venue in 0..<venues {
            let json = try JSONEncoder().encode(VenueUpsert(name: "Venue \(venue)", latitude: 0, longitude: 0, timezone: "Europe/Paris"))
            guard try connection.exchange(Self.request("PUT", "/api/v1/venues/v\(venue)", token: token, body: json)).status == 201 else {
                throw Measure.Failure(description: "cannot create venue \(venue)")
            }
        }
        return token
    }

    func folder(_ name: String) throws -> URL {
        let url = work.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    // MARK: 1. Ingest

    /// Where a case keeps its data: a SQLite file in its folder, or a new database in the cluster.
    enum Store {
        case sqlite
        case postgres(admin: String)

        /// What the ingest reference does, as the goal names it.
        var rawLoad: String {
            switch self {
            case .sqlite: "import"
            case .postgres: "\\copy"
            }
        }
    }

    /// Drops every database the cases made in the cluster. Called as each case ends: a database
    /// left behind is one autovacuum may work through while the next case measures, and the growth
    /// case leaves 10⁶ check-ins. The query case's healthz ÷ bare read 0.65 in two whole runs,
    /// after it, and 0.86 in a run of that case alone (`--only query`, 2026-11-27). Not the one
    /// `--growth-from` copies, an earlier run's that `--keep-databases` kept: it took that run
    /// twenty minutes to fill.
    func dropDatabases() throws {
        guard let postgres else { return }
        let listed = try Measure.run("/usr/bin/psql", [postgres, "-X", "-q", "-At", "-c", "SELECT datname FROM pg_database WHERE datname LIKE 'bench\\_%'"])
        guard listed.status == 0 else { throw Measure.Failure(description: "cannot list the databases in \(postgres)") }
        for database in listed.output.split(separator: "\n") where String(database) != size.growthFrom {
            guard try Measure.run("/usr/bin/psql", [postgres, "-X", "-q", "-c", "DROP DATABASE \(database) WITH (FORCE)"]).status == 0 else {
                throw Measure.Failure(description: "cannot drop database \(database) in \(postgres)")
            }
        }
    }

    /// A new, migrated-on-start database of `store` for one run: its `--database` value. On
    /// PostgreSQL, a copy of the database named `template` if one is given.
    func database(_ store: Store, named name: String, in run: URL, template: String? = nil) throws -> String {
        switch store {
        case .sqlite: return run.appendingPathComponent("\(name).sqlite").path
        case .postgres(let admin):
            let database = "bench_\(name.replacingOccurrences(of: "-", with: "_"))_\(UUID().uuidString.prefix(8).lowercased())"
            let create = "CREATE DATABASE \(database)" + (template.map { " TEMPLATE \($0)" } ?? "")
            guard try Measure.run("/usr/bin/psql", [admin, "-X", "-q", "-c", create]).status == 0 else {
                throw Measure.Failure(description: "cannot create database \(database) in \(admin)")
            }
            var url = URLComponents(string: admin)
            url?.path = "/\(database)"
            return url?.string ?? ""
        }
    }

    func ingest(_ store: Store = .sqlite) async throws -> CaseResult {
        var random = SplitMix64(seed: 1)
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let checkIns = (0..<size.ingestCheckIns).map {
            Self.checkIn(&random, venue: "v\($0 % 200)", seconds: 300, start: start.addingTimeInterval(Double($0) * 600))
        }
        // As the client sends them: API v2, every series.
        let bodies = try checkIns.map { try APIClient.uploadBody(CheckInV2($0)) }
        let samples = Double(checkIns.count * 300)
        var rates: [Double] = [], p50s: [Double] = [], p99s: [Double] = [], memories: [Double] = [], raws: [Double] = []
        for _ in 0..<size.runs {
            let run = try folder("ingest")
            // The rate limit is off here only: one load generator on one address would be refused after
            // 600 writes a minute. Everything else is as deployed: log level info, the access log on.
            let server = try await ServerProcess.hearclear(
                database: try database(store, named: "ingest", in: run), binaries: binaries, environment: ["HEARCLEAR_RATE_LIMIT": "0"],
                logFile: run.appendingPathComponent("ingest.log"))
            let token = try prepare(server: server, venues: 200)
            let load = try upload(bodies, token: token, port: server.port)
            rates.append(load.rate)
            p50s.append(load.p50)
            p99s.append(load.p99)
            memories.append(server.peakMemoryMB())
            await server.stop()
            switch store {
            case .sqlite: raws.append(samples / (try rawImportSeconds(checkIns, folder: run)))
            case .postgres: raws.append(samples / (try rawCopySeconds(checkIns, folder: run, database: try database(store, named: "raw", in: run))))
            }
        }
        let rate = Measure.median(rates), raw = Measure.median(raws)
        let ratio = rate * 300 / raw
        let loaded = "\(checkIns.count) gzipped API v2 check-ins of 300 seconds, every series and the classes, over 200 venues, 16 kept-alive connections"
        // What differs between the stores: the reference, the goal and what stands between them.
        let (name, reference, target, whenMissed, note): (String, String, Double, String, String) =
            switch store {
            case .sqlite:
                (
                    "Ingest", "the sqlite3 shell's .import of the same seconds as CSV into a bare row table (WITHOUT ROWID, WAL, one transaction): storing a row per second", 1.0,
                    "A check-in is one row and its seconds one blob (docs/storage.md), concurrent uploads share a write transaction and the columns are read straight from the JSON; but each upload is also inflated, validated, hashed, run through the spike filter and analysed, and stored with its per-hour sums, the outlier decisions of its hour and the venue's cells. The server's CPU on two cores is what limits, spread with no function above 3 % (docs/profiling.md), and runs of the same build differ by a tenth: at the goal, a run may fall either side of it.",
                    "\(loaded); hearclear-server at its default settings (log level info, access log to a file) but for the rate limit, off"
                )
            case .postgres:
                (
                    "Ingest (PostgreSQL)", "psql \\copy loading the same seconds into a bare row table in one transaction (same cluster)", 0.6,
                    "\\copy streams rows into the tables in one statement per table. Each upload is also inflated, decoded, validated, hashed and analysed; uploads arriving together are stored in groups, one transaction at a time, each locking its venues, inserting the rows, deciding the outliers of their hours and writing the venues' cells in a few round trips to PostgreSQL, which the next group waits for; PostgreSQL, the server and the load generator share the two cores, and this ratio moved between 0.57 and 0.75 from run to run of one build (docs/profiling.md).",
                    "\(loaded); hearclear-server at its default settings (pools of 20 connections and of 2 for uploads, log level info, access log to a file) but for the rate limit, off; PostgreSQL from scripts/test-postgres.sh (fsync off, as for tests: the reference runs on the same cluster)"
                )
            }
        return CaseResult(
            name: name, reference: reference,
            metrics: [
                .init(name: "check-ins/s", value: rate, unit: "1/s"), .init(name: "samples/s", value: rate * 300, unit: "1/s"),
                .init(name: "latency p50", value: Measure.median(p50s), unit: "ms"), .init(name: "latency p99", value: Measure.median(p99s), unit: "ms"),
                .init(name: "server peak RSS", value: Measure.median(memories), unit: "MB"),
                .init(name: "reference samples/s", value: raw, unit: "1/s"),
            ],
            goals: [
                .init(
                    description: "end-to-end samples/s ÷ raw \(store.rawLoad)", value: ratio, bound: .atLeast(target), whenMissed: whenMissed)
            ],
            note: note)
    }

    /// Check-ins per second, and the median and 99th percentile of their answer times (ms): the
    /// gzipped v2 `bodies` posted over 16 kept-alive connections, each on a thread of its own
    /// sending its share one request at a time.
    func upload(_ bodies: [Data], token: String, port: Int) throws -> (rate: Double, p50: Double, p99: Double) {
        let requests = bodies.map { Self.request("POST", "/api/v2/checkins", token: token, body: $0, gzipped: true) }
        let latencies = Locked<[Double]>([])
        let failures = Locked(0)
        let done = DispatchGroup()
        let began = ContinuousClock.now
        for worker in 0..<16 {
            done.enter()
            Thread {
                defer { done.leave() }
                guard let connection = try? LoopbackConnection(port: port) else { return failures.withLock { $0 += 1 } }
                var mine: [Double] = []
                for index in stride(from: worker, to: requests.count, by: 16) {
                    let sent = ContinuousClock.now
                    let status = (try? connection.exchange(requests[index]).status) ?? 0
                    mine.append((ContinuousClock.now - sent).seconds * 1000)
                    if status != 201 { failures.withLock { $0 += 1 } }
                }
                latencies.withLock { $0 += mine }
            }.start()
        }
        done.wait()
        let seconds = (ContinuousClock.now - began).seconds
        guard failures.withLock({ $0 }) == 0 else { throw Measure.Failure(description: "\(failures.withLock { $0 }) uploads failed") }
        let sorted = latencies.withLock { $0 }.sorted()
        return (Double(requests.count) / seconds, Measure.percentile(sorted, 0.5), Measure.percentile(sorted, 0.99))
    }

    /// The columns of a sample row, as both references write them: every series of API v2.
    static let sampleColumns = "checkin_seq, t, avg, peak, dropped, fast_max, c_avg, " + LevelDetails.octaveNames.joined(separator: ", ") + ", speech, music"

    /// The row table both references fill: a row per second, as the stores kept them before
    /// migration 0008 (sqlite) / 0007 (postgres) moved the seconds into a blob on the check-in.
    static func sampleTable(real: String, flag: String, percent: String) -> String {
        let details = (["fast_max", "c_avg"] + LevelDetails.octaveNames).map { "\($0) \(real), " }.joined()
        return "CREATE TABLE sample (checkin_seq bigint NOT NULL, t \(real) NOT NULL, avg \(real) NOT NULL, peak \(real) NOT NULL, "
            + "dropped \(flag) NOT NULL, \(details)speech \(percent), music \(percent), PRIMARY KEY (checkin_seq, t))"
    }

    /// The rows of `sampleTable` as CSV, one line per second of each check-in.
    static func sampleRows(_ checkIns: [CheckIn], dropped: String) -> String {
        var rows = ""
        for (index, checkIn) in checkIns.enumerated() {
            for sample in checkIn.samples {
                let classes = sample.classes.map { "\($0.percent.speech),\($0.percent.music)" } ?? ","
                rows += "\(index + 1),\(Self.sampleValues(sample, dropped: dropped)),\(classes)\n"
            }
        }
        return rows
    }

    /// A sample's values after its check-in's seq, in `sampleColumns`' order.
    static func sampleValues(_ sample: Sample, dropped: String) -> String {
        let details = sample.details.map { [$0.fastMax, $0.cAvg] + $0.octaves } ?? []
        return ([sample.t, sample.avg, sample.peak].map { "\($0)" } + [dropped] + details.map { "\($0)" }).joined(separator: ",")
    }

    /// Seconds the sqlite3 shell takes to `.import` the same seconds, as CSV, into a bare row table
    /// (WITHOUT ROWID, WAL, one transaction): the physical limit of storing a row per second.
    func rawImportSeconds(_ checkIns: [CheckIn], folder: URL) throws -> Double {
        let database = folder.appendingPathComponent("raw.sqlite").path
        let rows = folder.appendingPathComponent("sample.csv")
        try Data(Self.sampleRows(checkIns, dropped: "0").utf8).write(to: rows)
        let script = """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = NORMAL;
            \(Self.sampleTable(real: "REAL", flag: "INTEGER", percent: "INTEGER")) WITHOUT ROWID;
            .import --csv \(rows.path) sample

            """
        let file = folder.appendingPathComponent("import.sql")
        try Data(script.utf8).write(to: file)
        let run = try Measure.run("/usr/bin/sqlite3", [database], input: file.path)
        guard run.status == 0 else { throw Measure.Failure(description: "sqlite3 import failed: \(run.output)") }
        return run.wallSeconds
    }

    /// Seconds psql takes to load the same seconds with `\\copy` into a bare row table, in one
    /// transaction.
    func rawCopySeconds(_ checkIns: [CheckIn], folder: URL, database: String) throws -> Double {
        let rows = folder.appendingPathComponent("sample.csv")
        try Data(Self.sampleRows(checkIns, dropped: "f").utf8).write(to: rows)
        let script = """
            BEGIN;
            \(Self.sampleTable(real: "double precision", flag: "boolean", percent: "smallint"));
            \\copy sample (\(Self.sampleColumns)) FROM '\(rows.path)' WITH (FORMAT csv)
            COMMIT;

            """
        let file = folder.appendingPathComponent("copy.sql")
        try Data(script.utf8).write(to: file)
        let run = try Measure.run("/usr/bin/psql", [database, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file.path])
        guard run.status == 0 else { throw Measure.Failure(description: "psql \\copy failed: \(run.output)") }
        return run.wallSeconds
    }

    // MARK: 2. Query

    /// The loudness answers from a SQLite server, and from a PostgreSQL one holding the same data
    /// (`hearclear-server copy`) when a cluster is given, in the same runs.
    func query() async throws -> [CaseResult] {
        let big = try await seededDatabase(venues: size.queryVenues, checkIns: size.queryCheckIns, name: "query-big")
        let small = try await seededDatabase(venues: max(1, size.queryVenues / 100), checkIns: size.smallQueryCheckIns, name: "query-small")
        var copied: String?
        if let postgres {
            let target = try database(.postgres(admin: postgres), named: "query", in: work)
            let copy = try Measure.run(binaries.appendingPathComponent("hearclear-server").path, ["copy", "--from", big.database, "--to", target])
            guard copy.status == 0 else { throw Measure.Failure(description: "copy to PostgreSQL failed: \(copy.output)") }
            copied = target
        }
        var loudness: [Double] = [], health: [Double] = [], bare: [Double] = [], p99s: [Double] = [], smallRates: [Double] = []
        var postgresRates: [Double] = [], postgresP99s: [Double] = [], mixedRates: [Double] = [], mixedP99s: [Double] = []
        for _ in 0..<size.runs {
            if let copied {
                let server = try await ServerProcess.hearclear(database: copied, binaries: binaries, logFile: work.appendingPathComponent("query-postgres.log"))
                try warm(port: server.port, venues: size.queryVenues)
                let run = try wrk(port: server.port, script: big.script)
                postgresRates.append(run.rate)
                postgresP99s.append(run.p99)
                await server.stop()
            }
            let reference = try await ServerProcess.bareHummingbird(binaries: binaries, logFile: work.appendingPathComponent("bare.log"))
            bare.append(try wrk(port: reference.port, path: "/healthz").rate)
            await reference.stop()
            let server = try await ServerProcess.hearclear(database: big.database, binaries: binaries)
            try warm(port: server.port, venues: size.queryVenues)
            let bigRun = try wrk(port: server.port, script: big.script)
            loudness.append(bigRun.rate)
            p99s.append(bigRun.p99)
            health.append(try wrk(port: server.port, path: "/healthz").rate)
            let mixed = try whileCheckInsLand(port: server.port, venues: size.queryVenues) { try wrk(port: server.port, script: big.script) }
            mixedRates.append(mixed.rate)
            mixedP99s.append(mixed.p99)
            await server.stop()
            let smallServer = try await ServerProcess.hearclear(database: small.database, binaries: binaries)
            try warm(port: smallServer.port, venues: max(1, size.queryVenues / 100))
            smallRates.append(try wrk(port: smallServer.port, script: small.script).rate)
            await smallServer.stop()
        }
        let rate = Measure.median(loudness), healthRate = Measure.median(health), bareRate = Measure.median(bare), p99 = Measure.median(p99s)
        let growth = Measure.median(smallRates) / rate
        var results = [
            try queryResult(
                rate: rate, healthRate: healthRate, bareRate: bareRate, p99: p99, mixed: (Measure.median(mixedRates), Measure.median(mixedP99s)),
                smallRate: Measure.median(smallRates), growth: growth)
        ]
        if copied != nil {
            let postgresRate = Measure.median(postgresRates), ratio = postgresRate / rate
            results.append(
                CaseResult(
                    name: "Query (PostgreSQL)",
                    reference: "the same loudness requests to a SQLite server holding the same data, in the same run (wrk -t2 -c32, Accept-Encoding: gzip)",
                    metrics: [
                        .init(name: "loudness req/s", value: postgresRate, unit: "1/s"), .init(name: "loudness p99", value: Measure.median(postgresP99s), unit: "ms"),
                        .init(name: "SQLite loudness req/s", value: rate, unit: "1/s"),
                        .init(name: "bare Hummingbird healthz req/s", value: bareRate, unit: "1/s"),
                    ],
                    goals: [
                        .init(
                            description: "PostgreSQL loudness ÷ SQLite loudness", value: ratio, bound: .atLeast(0.9),
                            whenMissed: "Answers are cached per venue on either store; what differs is the change listener's connection and PostgreSQL's processes sharing the two cores with wrk.")
                    ],
                    note: "the query case's \(size.queryCheckIns) check-ins copied into PostgreSQL with hearclear-server copy; the answer cache warmed as for SQLite"))
        }
        return results
    }

    func queryResult(rate: Double, healthRate: Double, bareRate: Double, p99: Double, mixed: (rate: Double, p99: Double), smallRate: Double, growth: Double) throws
        -> CaseResult
    {
        let coldPerSecond = Double(Self.checkInsPerSecond)
        return CaseResult(
            name: "Query",
            reference: "a bare Hummingbird server (the same version, no middleware) answering GET /healthz, in the same run (wrk -t2 -c32, Accept-Encoding: gzip); hearclear-server at its default settings, its log at info going to a file",
            metrics: [
                .init(name: "loudness req/s", value: rate, unit: "1/s"), .init(name: "healthz req/s", value: healthRate, unit: "1/s"),
                .init(name: "bare Hummingbird healthz req/s", value: bareRate, unit: "1/s"),
                .init(name: "loudness p99, every answer warm", value: p99, unit: "ms"),
                .init(name: "loudness req/s while check-ins land", value: mixed.rate, unit: "1/s"),
                .init(name: "loudness p99 while check-ins land", value: mixed.p99, unit: "ms"),
                .init(name: "loudness req/s at \(size.smallQueryCheckIns) check-ins", value: smallRate, unit: "1/s"),
            ],
            goals: [
                .init(
                    description: "healthz ÷ bare Hummingbird healthz", value: healthRate / bareRate, bound: .atLeast(0.8),
                    whenMissed: "What a hearclear-server request adds to the framework's: the request id, metrics, access log and error middleware, the rate limiter's and the file middleware's lookups, the log line's formatting (its write is on another thread)."),
                .init(
                    description: "loudness ÷ bare Hummingbird healthz", value: rate / bareRate, bound: .atLeast(0.6),
                    whenMissed: "Answers are cached gzipped per venue until the venue changes, so a request costs the middleware, a lookup and about a kilobyte of body where healthz sends two bytes; requests that miss the cache read 200 rows and encode 200 cells of JSON."),
                .init(
                    description: "loudness p99 (ms), warm and cold mixed", value: mixed.p99, bound: .below(5),
                    whenMissed: "The slowest answers are those of venues that just changed: a database read and a JSON encoding, queued behind other requests on two cores shared with wrk."),
                .init(description: "answer time at \(size.queryCheckIns) ÷ at \(size.smallQueryCheckIns) check-ins", value: growth, bound: .atMost(1.5)),
            ],
            note:
                "\(size.queryCheckIns) check-ins of 60 samples across \(size.queryVenues) venues, venue ids rotating; one request per venue first warms the answer cache. Warm and cold mixed: the same load while \(Self.checkInsPerSecond) check-ins a second (from as many devices, within the default rate limit) land at venues being read, each changing that venue's answer, so that about one read in \(Int((mixed.rate / coldPerSecond).rounded())) is the first after a change (a cold answer without the cache's remaking: a database read and a JSON encoding)")
    }

    /// A database filled through the repository (the same ingest code as the API), and a wrk script
    /// asking for the loudness of its venues in turn.
    func seededDatabase(venues: Int, checkIns: Int, name: String) async throws -> (database: String, script: String) {
        let run = try folder(name)
        let path = run.appendingPathComponent("\(name).sqlite").path
        let pool = try SQLiteDatabase.openPool(path: path)
        try SQLiteDatabase.migrate(pool)
        let repository = SQLiteRepository(pool: pool)
        let device = try await repository.registerDevice(DeviceRegistration(model: "bench", platform: "linux"), tokenHash: Data(), at: Date())
        for venue in 0..<venues {
            _ = try await repository.saveVenue(id: "v\(venue)", VenueUpsert(name: "Venue \(venue)", latitude: 0, longitude: 0, timezone: "Europe/Paris"), by: device, at: Date())
        }
        var random = SplitMix64(seed: 2)
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        for index in 0..<checkIns {
            let checkIn = Self.checkIn(&random, venue: "v\(index % venues)", seconds: 60, start: start.addingTimeInterval(Double(index) * 1_237))
            _ = try await repository.storeCheckIn(checkIn, contentHash: Data(checkIn.id.wireString.utf8), by: device, at: Date())
        }
        try repository.close()
        return (path, try loudnessScript(venues: venues, in: run))
    }

    /// A wrk script asking for the loudness of venues v0, v1, … in turn.
    func loudnessScript(venues: Int, in run: URL) throws -> String {
        let script = run.appendingPathComponent("loudness.lua")
        try Data("""
            counter = 0
            request = function()
                counter = counter + 1
                return wrk.format("GET", "/api/v1/venues/v" .. (counter % \(venues)) .. "/loudness")
            end
            """.utf8).write(to: script)
        return script.path
    }

    /// One request per venue, so the measurement sees the steady state of the answer cache rather
    /// than its first fill (which the report states separately).
    func warm(port: Int, venues: Int) throws {
        let connection = try LoopbackConnection(port: port)
        for venue in 0..<venues {
            _ = try connection.exchange(Array("GET /api/v1/venues/v\(venue)/loudness HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n".utf8))
        }
    }

    /// Check-ins a second landing while `whileCheckInsLand` measures.
    static let checkInsPerSecond = 5

    /// Runs `measure` while check-ins land at the venues it reads, `checkInsPerSecond` a second,
    /// each from a device of its own (the server keeps its default rate limits: 60 writes a minute
    /// per device, 600 per address).
    func whileCheckInsLand<Result>(port: Int, venues: Int, _ measure: () throws -> Result) throws -> Result {
        let tokens = try (0..<Self.checkInsPerSecond).map { device in try registerDevice(port: port, model: "bench \(device)") }
        let connection = try LoopbackConnection(port: port)
        var random = SplitMix64(seed: 3)
        // Measured a month ago: the server refuses check-ins from the future.
        let start = Date().addingTimeInterval(-30 * 86_400)
        let uploads = try (0..<(size.wrkSeconds + 2) * Self.checkInsPerSecond).map { index in
            var checkIn = Self.checkIn(&random, venue: "v\(index * 7919 % venues)", seconds: 60, start: start.addingTimeInterval(Double(index) * 600))
            // Each run's own: the runs share the database, and the same id from another device is a conflict.
            checkIn.id = UUID(timeOrderedAt: checkIn.startedAt)
            return Self.request("POST", "/api/v2/checkins", token: tokens[index % tokens.count], body: try APIClient.uploadBody(CheckInV2(checkIn)), gzipped: true)
        }
        let stop = Locked(false), failures = Locked(0), finished = DispatchSemaphore(value: 0)
        Thread {
            defer { finished.signal() }
            let began = ContinuousClock.now
            for (index, upload) in uploads.enumerated() {
                // Paced: the load is a rate of check-ins, whatever the server's answer time.
                let due = began + .milliseconds(index * 1000 / Self.checkInsPerSecond)
                if due > ContinuousClock.now { Thread.sleep(forTimeInterval: (due - ContinuousClock.now).seconds) }
                if stop.withLock({ $0 }) { return }
                if (try? connection.exchange(upload).status) != 201 { failures.withLock { $0 += 1 } }
            }
        }.start()
        let result = try measure()
        stop.withLock { $0 = true }
        finished.wait()
        guard failures.withLock({ $0 }) == 0 else { throw Measure.Failure(description: "\(failures.withLock { $0 }) check-ins were not stored during the read load") }
        return result
    }

    /// wrk's requests/s and p99 latency (ms).
    func wrk(port: Int, path: String = "/", script: String? = nil, seconds: Int? = nil) throws -> (rate: Double, p99: Double) {
        // Like browsers and most HTTP clients, wrk is told it may get gzip.
        let arguments = ["-t2", "-c32", "-d\(seconds ?? size.wrkSeconds)s", "--latency", "-H", "Accept-Encoding: gzip"] + (script.map { ["-s", $0] } ?? []) + ["http://127.0.0.1:\(port)\(path)"]
        let run = try Measure.run("/usr/bin/wrk", arguments)
        let lines = run.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let rateLine = lines.first(where: { $0.hasPrefix("Requests/sec:") }), let rate = Double(rateLine.split(separator: " ").last ?? ""),
            let p99Line = lines.first(where: { $0.hasPrefix("99%") })
        else { throw Measure.Failure(description: "cannot read wrk's output: \(run.output)") }
        if lines.contains(where: { $0.hasPrefix("Non-2xx") }) { throw Measure.Failure(description: "wrk saw errors: \(run.output)") }
        return (rate, Self.milliseconds(String(p99Line.split(separator: " ").last ?? "")))
    }

    /// wrk's durations: 812.00us, 1.25ms, 2.10s.
    static func milliseconds(_ text: String) -> Double {
        if text.hasSuffix("us") { return (Double(text.dropLast(2)) ?? .nan) / 1000 }
        if text.hasSuffix("ms") { return Double(text.dropLast(2)) ?? .nan }
        if text.hasSuffix("s") { return (Double(text.dropLast(1)) ?? .nan) * 1000 }
        return .nan
    }

    // MARK: 3. Meter

    func meter() throws -> CaseResult {
        let run = try folder("meter")
        let file = run.appendingPathComponent("hour.wav")
        try BenchWAV.write(to: file, seconds: size.meterSeconds, sampleRate: 48_000)
        let chain = [
            "biquad", "0.2343017923", "0.468603584599", "0.2343017923", "1", "-0.22455845806", "0.012606625272",
            "biquad", "1", "-2", "1", "1", "-1.89387049487", "0.895159769228",
            "biquad", "1", "-2", "1", "1", "-1.994614455846", "0.994621706866",
        ]
        var ours: [String: [Measure.Run]] = ["A": [], "Z": []], sox: [String: [Measure.Run]] = ["A": [], "Z": []], levelsAlone: [Measure.Run] = []
        for _ in 0..<size.runs {
            for weighting in ["A", "Z"] {
                ours[weighting]!.append(try Measure.run(hearclear, ["analyze", file.path, "--csv", "--weighting", weighting], environment: ["HOME": run.path]))
                sox[weighting]!.append(try Measure.run("/usr/bin/sox", [file.path, "-n", "trim", "0", "1"] + (weighting == "A" ? chain : []) + ["stats", ":", "newfile", ":", "restart"]))
            }
            levelsAlone.append(try Measure.run(hearclear, ["analyze", file.path, "--csv", "--no-classes"], environment: ["HOME": run.path]))
        }
        func cpu(_ runs: [Measure.Run]) -> Double { Measure.median(runs.map(\.userSeconds)) }
        func memory(_ runs: [Measure.Run]) -> Double { Measure.median(runs.map(\.peakMemoryMB)) }
        let speedA = cpu(sox["A"]!) / cpu(ours["A"]!), speedZ = cpu(sox["Z"]!) / cpu(ours["Z"]!)
        let classesCost = cpu(ours["A"]!) / cpu(levelsAlone)
        let rss = max(memory(ours["A"]!), memory(ours["Z"]!))
        return CaseResult(
            name: "Meter", reference: "sox stats per second, unweighted and after its A-weighting biquad chain",
            metrics: [
                .init(name: "A-weighted user CPU", value: cpu(ours["A"]!), unit: "s"), .init(name: "sox A-weighted user CPU", value: cpu(sox["A"]!), unit: "s"),
                .init(name: "unweighted user CPU", value: cpu(ours["Z"]!), unit: "s"), .init(name: "sox unweighted user CPU", value: cpu(sox["Z"]!), unit: "s"),
                .init(name: "A-weighted user CPU, --no-classes", value: cpu(levelsAlone), unit: "s"),
                .init(name: "peak RSS", value: rss, unit: "MB"),
            ],
            goals: [
                .init(
                    description: "sox A ÷ ours A, everything on (speed-up)", value: speedA, bound: .atLeast(2),
                    whenMissed: "Speech and music classification runs in the same pass as the levels (docs/sound-classes.md, \"What it costs\"); the goal below says what it adds. With the levels alone this ratio was 2.65 (docs/benchmarks.md as make bench wrote it at commit 36e5a9e), with version 1 of the sound features 1.15 (commit a5cc5f0)"),
                .init(
                    description: "analyze ÷ analyze --no-classes (what speech and music add)", value: classesCost, bound: .atMost(1.3),
                    whenMissed: "Per frame of 32 ms (768 samples after decimating 48 kHz to 24) the features take a real transform of 768 points, every other frame one of 384, and the decimating filter reads every sample; the network runs once a second (docs/sound-classes.md, \"What it costs\")."),
                .init(
                    description: "sox Z ÷ ours Z", value: speedZ, bound: .atLeast(1),
                    whenMissed: "Every interval now carries the C level, the four octave bands and the Fast maximum, measured in the same pass whatever the weighting: ours Z runs 16 filter sections per sample (4 for C, 12 for the bands) and the Fast detector, sox's `stats` none. Before them ours Z ran 1.86× sox's speed (docs/benchmarks.md as make bench wrote it at commit be9a31b), and 0.40 with them (commit 36e5a9e); speech and music classification, in the same pass since, costs more again (see the goal above)."),
                .init(
                    description: "peak RSS (MB)", value: rss, bound: .below(30),
                    whenMissed: "It is a fixed cost, the same for a 3-second file as for this hour: the Swift runtime and Foundation, loaded before any audio (FoundationNetworking and libcurl no longer are: `analyze` never loads the client's HTTP library), then opening a file through libsndfile (which probes its codec libraries: FLAC, Vorbis, Opus, mpg123, LAME) and formatting the output; `/usr/bin/time -v .build/release/hearclear --help` shows the first part. The meter keeps one interval's sums and streams the file, so the figure does not grow with the length (the memory case shows it for check-ins)"),
            ],
            note: "\(size.meterSeconds) s of 48 kHz mono 16-bit noise and tones, hearclear analyze --csv (every interval with avg, peak, Fast maximum, C, the four octave bands, and speech and music)")
    }

    // MARK: 4. Wire size

    /// The three recordings of the wire-size case, 5 minutes each at 48 kHz: synthetic speech
    /// (espeak-ng reading the GPL's text, which every Debian system carries), music (Planet Blupi's
    /// soundtrack, planetblupi-music-ogg) and the speech over the music, each over pink noise at
    /// −60 dBFS, the self-noise of a phone's microphone (espeak-ng's pauses are digital silence,
    /// which no room gives and which would compress unfairly well).
    func wireRecordings(seconds: Int, in run: URL) throws -> [(name: String, file: URL)] {
        let text = run.appendingPathComponent("speech.txt"), speech = run.appendingPathComponent("espeak.wav")
        let license = try String(contentsOf: URL(fileURLWithPath: "/usr/share/common-licenses/GPL-3"), encoding: .utf8)
        try Data(license.prefix(9_000).utf8).write(to: text)
        guard try Measure.run("/usr/bin/espeak-ng", ["-f", text.path, "-w", speech.path]).status == 0 else {
            throw Measure.Failure(description: "espeak-ng failed (make bench installs espeak-ng)")
        }
        let format = ["-r", "48000", "-c", "1"]
        func sox(_ arguments: [String], making what: String) throws {
            let result = try Measure.run("/usr/bin/sox", arguments)
            guard result.status == 0 else { throw Measure.Failure(description: "sox could not make the \(what): \(result.output)") }
        }
        // sox mixes only files of one rate: each source is brought to 48 kHz mono first.
        let noise = run.appendingPathComponent("noise.wav"), voice = run.appendingPathComponent("voice.wav"), music = run.appendingPathComponent("music-only.wav")
        try sox(["-n"] + format + [noise.path, "synth", "\(seconds)", "pinknoise", "vol", "0.001"], making: "noise floor")
        try sox([speech.path] + format + [voice.path, "trim", "0", "\(seconds)"], making: "speech")
        try sox(["/usr/share/planetblupi/music/music001.ogg"] + format + [music.path, "trim", "0", "\(seconds)"], making: "music")
        var made: [(String, URL)] = []
        for (name, mix) in [("speech", [voice.path]), ("music", [music.path]), ("speech over music", [voice.path, "-v", "0.3", music.path])] {
            let file = run.appendingPathComponent("\(name).wav")
            try sox(["-m", "-v", "1"] + mix + ["-v", "1", noise.path, file.path], making: "\(name) recording")
            made.append((name, file))
        }
        return made
    }

    func wireSize() throws -> CaseResult {
        struct Analysis: Decodable { let samples: [IntervalRecord] }
        let run = try folder("wire")
        var metrics: [CaseResult.Metric] = [], largest = (levels: 0.0, details: 0.0)
        let seconds = size.shortCheckInSeconds
        // What a second costs in the stores' blob, every series and the classes with their dropped
        // flags: on the meter's seconds below, and on the bench's made-up ones (ingest, growth).
        func storedPerSecond(_ samples: [Sample]) -> Double {
            Double(SampleColumns(samples: samples, dropped: HearClearAnalysis.Analysis.dropped(in: samples.map(\.avg))).encoded(intervalS: 1).count) / Double(samples.count)
        }
        var random = SplitMix64(seed: 5)
        metrics.append(
            .init(
                name: "made-up seconds (ingest and growth cases): stored blob",
                value: storedPerSecond(Self.checkIn(&random, venue: "v1", seconds: seconds, start: Date(timeIntervalSince1970: 1_790_000_000)).samples), unit: "B"))
        for (name, file) in try wireRecordings(seconds: seconds, in: run) {
            // The intervals as the client measures them, and the body it would upload.
            let analysis = try Measure.run(hearclear, ["analyze", file.path, "--json"], environment: ["HOME": run.path])
            let measured = try JSONDecoder().decode(Analysis.self, from: Data(analysis.output.utf8)).samples.map(\.sample.roundedForUpload)
            guard measured.count == seconds, measured.allSatisfy({ $0.details != nil }) else {
                throw Measure.Failure(description: "\(name): \(measured.count) intervals, expected \(seconds) with details")
            }
            let checkIn = CheckIn(id: UUID(), venueID: "v1", startedAt: Date(timeIntervalSince1970: 1_790_000_000), calibrationDB: 110, samples: measured)
            var levelsOnly = checkIn, eightSeries = checkIn
            levelsOnly.samples = measured.map { Sample(t: $0.t, avg: $0.avg, peak: $0.peak) }
            eightSeries.samples = measured.map { Sample(t: $0.t, avg: $0.avg, peak: $0.peak, details: $0.details) }
            let perInterval = { (body: Data) in Double(body.count) / Double(seconds) }
            let (levels, details) = (perInterval(try APIClient.uploadBody(CheckInV2(levelsOnly))), perInterval(try APIClient.uploadBody(CheckInV2(eightSeries))))
            metrics += [
                .init(name: "\(name): v2, avg and peak", value: levels, unit: "B"), .init(name: "\(name): v2, all eight series", value: details, unit: "B"),
                .init(
                    name: "\(name): v2, all eight series, keys sorted (as sealed before CheckInV2.body)",
                    value: perInterval(try APIClient.gzip(JSONEncoder.outbox.encode(CheckInV2(eightSeries)))), unit: "B"),
                .init(name: "\(name): v2, the eight series with speech and music", value: perInterval(try APIClient.uploadBody(CheckInV2(checkIn))), unit: "B"),
                .init(name: "\(name): v1 (avg and peak)", value: perInterval(try APIClient.uploadBody(levelsOnly)), unit: "B"),
                .init(name: "\(name): stored blob, every series and the classes", value: storedPerSecond(measured), unit: "B"),
            ]
            largest = (max(largest.levels, levels), max(largest.details, details))
        }
        return CaseResult(
            name: "Wire size", reference: "none: gzipped bytes on the wire per interval",
            metrics: metrics,
            goals: [
                .init(
                    description: "bytes per interval, v2 avg and peak (largest of the three)", value: largest.levels, bound: .atMost(4),
                    whenMissed: "Each level is a number in tenths of a dB that varies second to second as the sound does; gzip cannot squeeze out what is noise in the signal itself. Deltas between intervals would help gzip only when levels change slowly."),
                .init(
                    description: "bytes per interval, v2 all eight series (largest of the three)", value: largest.details, bound: .atMost(12),
                    whenMissed: "Each series adds its own second-to-second variation, which gzip cannot remove: the four bands and C cost about 1.5 bytes per interval each, as much as avg or peak. The two recordings with speech come out a little over, music under; what remains for the wire format as specified (integer tenths in arrays, gzip) is small. The body is what the outbox seals at gzip's strongest level, its arrays each beside the one it most resembles (CheckInV2.body), which saves about 2 % against the keys sorted."),
            ],
            note: "5-minute check-ins measured by hearclear analyze from speech (espeak-ng), music (planetblupi-music-ogg) and the two mixed, over a −60 dBFS noise floor; bodies built by the client's own code (levels to 0.1 dB, API v2 columns, gzip); speech and music (whole percent) are measured as well but are not among the eight series of the goal")
    }

    // MARK: 5. Memory over time

    func memoryOverTime() async throws -> CaseResult {
        let run = try folder("memory")
        let long = run.appendingPathComponent("long.wav"), short = run.appendingPathComponent("short.wav")
        try BenchWAV.write(to: long, seconds: size.longCheckInSeconds, sampleRate: 16_000)
        try BenchWAV.write(to: short, seconds: size.shortCheckInSeconds, sampleRate: 16_000)
        let server = try await ServerProcess.hearclear(database: run.appendingPathComponent("memory.sqlite").path, binaries: binaries)
        let environment = ["HOME": run.path, "XDG_CONFIG_HOME": run.appendingPathComponent("config").path, "XDG_DATA_HOME": run.appendingPathComponent("data").path]
        guard try Measure.run(hearclear, ["register", "--server", "http://127.0.0.1:\(server.port)"], environment: environment).status == 0,
            try Measure.run(hearclear, ["venue", "add", "bench", "--name", "Bench", "--lat", "0", "--lng", "0", "--timezone", "UTC"], environment: environment).status == 0
        else { throw Measure.Failure(description: "cannot set up the client") }
        func peakMemory(checkingIn file: URL) throws -> Double {
            let checkIn = try Measure.run(hearclear, ["checkin", "bench", "--file", file.path, "--duration", "3h"], environment: environment)
            guard checkIn.status == 0 else { throw Measure.Failure(description: "checkin failed: \(checkIn.output)") }
            return checkIn.peakMemoryMB
        }
        var longRSS: [Double] = [], shortRSS: [Double] = []
        for _ in 0..<size.runs {
            longRSS.append(try peakMemory(checkingIn: long))
            shortRSS.append(try peakMemory(checkingIn: short))
        }
        await server.stop()
        let difference = Measure.median(longRSS) - Measure.median(shortRSS)
        return CaseResult(
            name: "Memory over time", reference: "the same client on a \(Self.minutes(size.shortCheckInSeconds)) check-in",
            metrics: [
                .init(name: "\(Self.minutes(size.longCheckInSeconds)) check-in peak RSS", value: Measure.median(longRSS), unit: "MB"),
                .init(name: "\(Self.minutes(size.shortCheckInSeconds)) check-in peak RSS", value: Measure.median(shortRSS), unit: "MB"),
            ],
            goals: [
                .init(
                    description: "difference (MB)", value: difference, bound: .atMost(5),
                    whenMissed: "The meter's memory does not grow with the length, and the sealed check-in goes up as its file's bytes (it was decoded back first, 4 MB of JSONDecoder's map for two hours); what still grows is the session's intervals, kept until the check-in is sealed, and the JSON encoding that seals them: `heaptrack hearclear checkin bench --file long.wav` shows where."),
            ],
            note: "hearclear checkin --file, 16 kHz mono, uploaded to a local server")
    }
}

extension Cases {
    static func minutes(_ seconds: Int) -> String {
        seconds % 60 == 0 ? "\(seconds / 60)-minute" : "\(seconds)-second"
    }
}

/// WAV files of noise and tones, written as they are generated (an hour is 345 MB).
enum BenchWAV {
    static func write(to url: URL, seconds: Int, sampleRate: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let bytes = UInt32(seconds * sampleRate * 2)
        var header = Data("RIFF".utf8)
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
        append32(36 + bytes)
        header.append(Data("WAVEfmt ".utf8))
        append32(16); append16(1); append16(1); append32(UInt32(sampleRate)); append32(UInt32(sampleRate * 2)); append16(2); append16(16)
        header.append(Data("data".utf8))
        append32(bytes)
        handle.write(header)
        var random = SplitMix64(seed: 4)
        for second in 0..<seconds {
            let loudness = 0.05 + 0.25 * (0.5 + 0.5 * sin(Double(second) / 300))
            var block = Data(capacity: sampleRate * 2)
            for index in 0..<sampleRate {
                let time = Double(second * sampleRate + index) / Double(sampleRate)
                let value = loudness * (0.6 * random.uniform(-1, 1) + 0.3 * sin(2 * .pi * 440 * time) + 0.1 * sin(2 * .pi * 3150 * time))
                let sample = Int16(max(-32768, min(32767, value * 32767)))
                withUnsafeBytes(of: sample.littleEndian) { block.append(contentsOf: $0) }
            }
            handle.write(block)
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
