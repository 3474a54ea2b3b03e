import Foundation
import HearClearAnalysis
import HearClearClient
import HearClearCore
import HearClearServer
import LoopbackHTTP
import Logging

extension Cases {
    /// What one step of the growth case measured, with `storedCheckIns` already stored.
    struct GrowthStep {
        let storedCheckIns: Int
        let load: Load
        /// On disk per stored second, indexes included; nil for the empty store.
        let bytesPerSecond: Double?
        /// The same loads on a new empty store, measured in turn with this step's; nil for the first
        /// step, itself on the empty store.
        let beside: Load?
    }

    /// What one load measured: the uploads, then the answers.
    struct Load {
        /// The first uploads after the server started, which read from the file every page they
        /// reach; not the measure of ingest, said beside it.
        let coldIngestRate: Double
        let ingestRate: Double
        let ingestP99: Double
        let loudnessRate: Double
        let loudnessP99: Double

        /// Each figure's median over `loads`.
        static func median(_ loads: [Load]) -> Load {
            Load(
                coldIngestRate: Measure.median(loads.map(\.coldIngestRate)), ingestRate: Measure.median(loads.map(\.ingestRate)),
                ingestP99: Measure.median(loads.map(\.ingestP99)), loudnessRate: Measure.median(loads.map(\.loudnessRate)),
                loudnessP99: Measure.median(loads.map(\.loudnessP99)))
        }
    }

    /// Ingest and loudness answers on an empty store, then with `size.growthCheckIns` check-ins
    /// stored, and what a stored second costs on disk. The store is filled through its own save
    /// path (`storeCheckIn`, as the API stores), not HTTP, to keep the run short.
    ///
    /// Each step after the first is compared with the same loads on a new empty store, measured in
    /// turn with it: this machine's speed drifts by ±15 % over the minutes a fill takes, and one
    /// empty store measured at the start moved the ratio by as much.
    func growth(_ store: Store = .sqlite) async throws -> CaseResult {
        let run = try folder("growth")
        // The venues the first uploads reach, which have check-ins at every step.
        let read = min(size.growthWarmUploads, size.growthVenues)
        let script = try loudnessScript(venues: read, in: run)
        var random = SplitMix64(seed: 5)
        var stored = 0
        var targets = [0] + size.growthCheckIns
        let location: String
        if let earlier = size.growthFrom {
            (location, stored) = try copyGrowthStore(earlier, store, in: run)
            targets = [stored]
            // Other check-ins than the run that filled it: the same draws would be its first
            // check-ins again, retries rather than new uploads.
            random = SplitMix64(seed: 6)
        } else {
            location = try database(store, named: "growth", in: run)
        }
        var steps: [GrowthStep] = []
        for target in targets {
            // A step named for more check-ins than it holds would say the wrong thing (`Size`).
            guard target >= stored else { throw Measure.Failure(description: "the growth step of \(target) check-ins would hold \(stored)") }
            let filling = ContinuousClock.now
            let filled = target - stored
            stored = try await fill(location, from: stored, to: target, random: &random)
            let fillRate = Double(filled) / (ContinuousClock.now - filling).seconds
            let bytes = stored == 0 ? nil : try storedBytes(store, location) / Double(stored * Self.growthSeconds)
            // Numbered from a multiple of the venues, so that they reach the venues the answers are
            // asked of: a file from an earlier run also holds its steps' uploads.
            let first = stored - stored % size.growthVenues, perRound = size.growthWarmUploads + size.growthUploads
            let empty = target > 0 ? try database(store, named: "growth-empty-\(target)", in: run) : nil
            if let empty { _ = try await fill(empty, from: 0, to: 0, random: &random) }
            // Rounds of the step and the store beside it in turn, the median of each said: one pair
            // of loads gave ratios from 0.63 to 0.91 over one file and one build (docs/profiling.md,
            // Ingest, step 23).
            var loads: [Load] = [], besides: [Load] = []
            for round in 0..<size.runs {
                let bodies = try (first + round * perRound..<first + (round + 1) * perRound).map { number in
                    try APIClient.uploadBody(CheckInV2(nextCheckIn(&random, number: number)))
                }
                loads.append(try await measure(location, bodies: bodies, script: script, venues: read, run: run))
                if let empty { besides.append(try await measure(empty, bodies: bodies, script: script, venues: read, run: run)) }
            }
            stored += size.runs * perRound
            let load = Load.median(loads), beside = besides.isEmpty ? nil : Load.median(besides)
            // Said as each step ends: the last steps of a full run take most of an hour.
            FileHandle.standardError.write(
                Data(
                    "growth: \(target) stored: \(Int(load.ingestRate)) check-ins/s\(beside.map { " (\(Int($0.ingestRate)) on an empty store beside it)" } ?? ""), loudness \(Int(load.loudnessRate)) req/s (p99 \(load.loudnessP99) ms)\(bytes.map { ", \(String(format: "%.1f", $0)) B per stored second" } ?? "")\(filled > 0 ? "; filled at \(Int(fillRate)) check-ins/s" : "")\n"
                        .utf8))
            steps.append(GrowthStep(storedCheckIns: target, load: load, bytesPerSecond: bytes, beside: beside))
        }
        return growthResult(store, steps: steps)
    }

    /// Copies the store an earlier growth run filled (a SQLite file, or the name of a PostgreSQL
    /// database in the same cluster, kept by `--keep-databases`); returns the copy's location and
    /// how many check-ins it holds. A SQLite file's WAL must be empty (the case leaves it so): the
    /// file alone is the whole store.
    func copyGrowthStore(_ earlier: String, _ store: Store, in run: URL) throws -> (location: String, checkIns: Int) {
        let location: String, count: Measure.Run
        switch store {
        case .sqlite:
            let wal = (try? FileManager.default.attributesOfItem(atPath: earlier + "-wal")[.size] as? Int) ?? 0
            guard wal == 0 else { throw Measure.Failure(description: "\(earlier)-wal is not empty: checkpoint it first (PRAGMA wal_checkpoint(TRUNCATE))") }
            location = try database(store, named: "growth", in: run)
            try FileManager.default.copyItem(atPath: earlier, toPath: location)
            count = try Measure.run("/usr/bin/sqlite3", [location, "SELECT count(*) FROM checkin"])
        case .postgres:
            location = try database(store, named: "growth", in: run, template: earlier)
            count = try Measure.run("/usr/bin/psql", [location, "-X", "-q", "-At", "-c", "SELECT count(*) FROM checkin"])
        }
        guard count.status == 0, let checkIns = Int(count.output.trimmingCharacters(in: .whitespacesAndNewlines)), checkIns > 0 else {
            throw Measure.Failure(description: "\(earlier) holds no growth case's check-ins: \(count.output)")
        }
        return (location, checkIns)
    }

    /// A server over `location`: `bodies` uploaded as in the ingest case, the first
    /// `size.growthWarmUploads` of them to warm it and the rest measured, then the loudness of the
    /// first `venues` (those they reached) asked once to warm the cache, then by wrk in turn (`script`),
    /// once for a short while to warm the server and once measured.
    ///
    /// A newly started server reads from the file every page its first uploads reach, and a large
    /// file has many more of them (each check-in id's index page, each venue's rows): over the file
    /// of 10⁶ check-ins its first uploads ran markedly slower than the next (docs/profiling.md,
    /// Ingest, step 23). What a running server sustains is the second; the first is said beside it.
    func measure(_ location: String, bodies: [Data], script: String, venues: Int, run: URL) async throws -> Load {
        let server = try await ServerProcess.hearclear(
            database: location, binaries: binaries, environment: ["HEARCLEAR_RATE_LIMIT": "0"], logFile: run.appendingPathComponent("growth.log"))
        let token = try registerDevice(port: server.port)
        let cold = try upload(Array(bodies[..<size.growthWarmUploads]), token: token, port: server.port)
        let load = try upload(Array(bodies[size.growthWarmUploads...]), token: token, port: server.port)
        try warm(port: server.port, venues: venues)
        // A first run of wrk, not counted: over a copy of the 10⁶ file the first of two runs in a row
        // was the slower in each of six servers, by 5 % on average and up to 17 %, on the step's
        // store and on the one beside it (docs/profiling.md, Ingest, step 30).
        _ = try wrk(port: server.port, script: script, seconds: answersWarmUpSeconds)
        let answers = try wrk(port: server.port, script: script)
        await server.stop()
        return Load(coldIngestRate: cold.rate, ingestRate: load.rate, ingestP99: load.p99, loudnessRate: answers.rate, loudnessP99: answers.p99)
    }

    /// How long wrk asks for answers, uncounted, before the measured run (`measure`).
    var answersWarmUpSeconds: Int { min(2, size.wrkSeconds) }

    /// Seconds in each check-in of the growth case, as in the ingest case.
    static let growthSeconds = 300

    /// The check-in stored as number `number`: venues in turn, a check-in a minute. Past 10⁶ that is
    /// still before 2023: the server refuses an upload that starts in the future, and with one
    /// every 10 minutes the uploads of the 10⁶ step started in 2039 and were all refused.
    func nextCheckIn(_ random: inout SplitMix64, number: Int) -> CheckIn {
        Self.checkIn(
            &random, venue: "v\(number % size.growthVenues)", seconds: Self.growthSeconds,
            start: Date(timeIntervalSince1970: 1_600_000_000 + Double(number) * 60))
    }

    /// Check-ins stored at once by the fill: 16 rather than 4 filled 10⁴ check-ins over 100 venues
    /// at 703 rather than 500 a second here (one run each; with 4 a third of the cores sat idle).
    static let fillWorkers = 16

    /// Stores check-ins `from` ..< `to` through the store's own save path, `fillWorkers` at a time; the
    /// venues first, into an empty store.
    func fill(_ location: String, from: Int, to: Int, random: inout SplitMix64) async throws -> Int {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let opened = try await OpenedStore.open(try DatabaseLocation(location), logger: logger)
        defer { opened.close() }
        let repository = opened.store
        let device = try await repository.registerDevice(DeviceRegistration(model: "bench fill", platform: "linux"), tokenHash: Data(UUID().uuidString.utf8), at: Date())
        if from == 0 {
            for venue in 0..<size.growthVenues {
                _ = try await repository.saveVenue(
                    id: "v\(venue)", VenueUpsert(name: "Venue \(venue)", latitude: 0, longitude: 0, timezone: "Europe/Paris"), by: device, at: Date())
            }
        }
        // Made a few thousand at a time: a million check-ins of 300 seconds at once would not fit in memory.
        for chunk in stride(from: from, to: to, by: 4_000) {
            let checkIns = (chunk..<min(chunk + 4_000, to)).map { nextCheckIn(&random, number: $0) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<Self.fillWorkers {
                    group.addTask {
                        for checkIn in stride(from: worker, to: checkIns.count, by: Self.fillWorkers).map({ checkIns[$0] }) {
                            _ = try await repository.storeCheckIn(checkIn, contentHash: Data(checkIn.id.wireString.utf8), by: device, at: Date())
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        return to
    }

    /// The store's bytes on disk, indexes included: the SQLite file and its WAL (which closing the
    /// store empties, unless a reader still held it), or every table of the PostgreSQL database
    /// with its indexes and TOAST.
    func storedBytes(_ store: Store, _ location: String) throws -> Double {
        switch store {
        case .sqlite:
            let files = [location, location + "-wal"].compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }
            return Double(files.reduce(0, +))
        case .postgres:
            let run = try Measure.run(
                "/usr/bin/psql",
                [location, "-X", "-q", "-A", "-t", "-c", "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'"])
            guard run.status == 0, let bytes = Double(run.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw Measure.Failure(description: "cannot measure the size of \(location): \(run.output)")
            }
            return bytes
        }
    }

    func growthResult(_ store: Store, steps: [GrowthStep]) -> CaseResult {
        let largest = steps[steps.count - 1], empty = largest.beside ?? largest.load
        let ingestRatio = largest.load.ingestRate / empty.ingestRate, answerRatio = largest.load.loudnessRate / empty.loudnessRate
        let bytes = largest.bytesPerSecond ?? 0
        let (name, bytesTarget) = if case .sqlite = store { ("Growth", 10.0) } else { ("Growth (PostgreSQL)", 16.0) }
        var metrics: [CaseResult.Metric] = []
        for step in steps {
            let at = "at \(step.storedCheckIns) stored"
            metrics += [
                .init(name: "check-ins/s \(at)", value: step.load.ingestRate, unit: "1/s"), .init(name: "ingest p99 \(at)", value: step.load.ingestP99, unit: "ms"),
                .init(name: "check-ins/s of the first \(size.growthWarmUploads) after the server starts \(at)", value: step.load.coldIngestRate, unit: "1/s"),
                .init(name: "loudness req/s \(at)", value: step.load.loudnessRate, unit: "1/s"),
                .init(name: "loudness p99 \(at)", value: step.load.loudnessP99, unit: "ms"),
            ]
            if let beside = step.beside {
                metrics += [
                    .init(name: "check-ins/s on an empty store beside the step \(at)", value: beside.ingestRate, unit: "1/s"),
                    .init(
                        name: "check-ins/s of the first \(size.growthWarmUploads) after the server starts on an empty store beside the step \(at)",
                        value: beside.coldIngestRate, unit: "1/s"),
                    .init(name: "loudness req/s on an empty store beside the step \(at)", value: beside.loudnessRate, unit: "1/s"),
                ]
            }
            if let perSecond = step.bytesPerSecond { metrics.append(.init(name: "bytes per stored second \(at)", value: perSecond, unit: "B")) }
        }
        return CaseResult(
            name: name,
            reference: "the same server and loads on a new empty store, measured in turn with each step, in the same run",
            metrics: metrics,
            goals: [
                .init(
                    description: "ingest at \(largest.storedCheckIns) stored ÷ on an empty store", value: ingestRatio, bound: .atLeast(0.8),
                    whenMissed: "A check-in's writes touch its venue's rows only (its cells, its check-ins of the same home hour for the outlier rule), through indexes; what grows with a venue's check-ins is the cells each upload reads and writes (an empty store has few), how often the outlier rule sums cells again, and the pages the cache no longer holds (docs/profiling.md, Ingest, step 15). On PostgreSQL most of what grows is the outlier rule's reads and status changes among a venue's stored check-ins, each row on a heap page of its own, as a heap keeps no order (steps 25 to 29)."),
                .init(
                    description: "loudness req/s at \(largest.storedCheckIns) stored ÷ on an empty store", value: answerRatio, bound: .atLeast(0.9),
                    whenMissed: "Answers come from the answer cache on both stores once it is warm; what differs at the largest step is the answer itself: a venue of about a hundred check-ins at the largest step gzips its answer to about 1.5 KB against 1 KB for a venue of one or two beside it, so each request sends more. Between whole runs this ratio also moves by a tenth or more (docs/profiling.md, Ingest, step 30)."),
                .init(
                    description: "bytes on disk per stored second at \(largest.storedCheckIns) stored", value: bytes, bound: .atMost(bytesTarget),
                    whenMissed: "Each check-in also keeps its row, its per-hour sums and their indexes, and each venue its cells: a fixed cost per check-in and per venue on top of its samples blob (docs/storage.md)."),
            ],
            note:
                "filled through the store's own save path, \(Self.fillWorkers) check-ins at a time, with check-ins of \(Self.growthSeconds) seconds (every series and the classes) over \(size.growthVenues) venues; at each step, in each of \(size.runs) rounds (medians said), a server is started, \(size.growthWarmUploads) more are uploaded as in the ingest case (rate limit off) to warm it, then \(size.growthUploads) more measured, then the loudness of the first \(min(size.growthWarmUploads, size.growthVenues)) venues (those the first uploads reached) is asked once to warm the cache and wrk asks for them in turn (-t2 -c32), \(answersWarmUpSeconds) s to warm the server, then \(size.wrkSeconds) s measured"
        )
    }
}
