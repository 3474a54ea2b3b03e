import Foundation
import LoopbackHTTP
import HearClearCore
import TestCluster
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the server survives, on a real server process over loopback (docs/reliability.md).
@Suite(.serialized) struct ReliabilityTests {
    static let clients = 32

    let folder: URL

    init() throws {
        folder = try temporaryFolder()
    }

    /// API calls as the load generator needs them; a network failure is `nil`, not an error.
    struct Client: Sendable {
        let server: URL
        let session: URLSession = {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 20
            configuration.httpMaximumConnectionsPerHost = 64
            return URLSession(configuration: configuration)
        }()

        func send(_ method: String, _ path: String, token: String? = nil, body: Data) async -> (status: Int, body: Data)? {
            var request = URLRequest(url: server.appendingPathComponent(path))
            request.httpMethod = method
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            guard let (data, response) = try? await session.data(for: request), let http = response as? HTTPURLResponse else { return nil }
            return (http.statusCode, data)
        }

        func register() async throws -> String {
            let answer = try #require(await send("POST", "api/v1/devices", body: Data(#"{"model": "Load", "platform": "test"}"#.utf8)))
            return try JSONDecoder().decode(DeviceCredentials.self, from: answer.body).token
        }

        func addVenue(_ id: String, token: String) async throws {
            let venue = try JSONEncoder().encode(VenueUpsert(name: "Venue \(id)", latitude: 0, longitude: 0, timezone: "Europe/Paris"))
            #expect(await send("PUT", "api/v1/venues/\(id)", token: token, body: venue)?.status == 201)
        }
    }

    /// Client `client`'s `count` check-ins, 30 samples each, at 4 venues over two months.
    static func checkIns(client: Int, count: Int) -> [CheckIn] {
        (0..<count).map { index in
            let start = Date(timeIntervalSince1970: 1_790_000_000 + Double(client * 7919 + index * 3607 % 5_000_000))
            let level = -45 + Double((client + index) % 7)
            return CheckIn(
                id: UUID(), venueID: "venue-\((client + index) % 4)", startedAt: start, calibrationDB: 110,
                samples: (0..<30).map { Sample(t: Double($0), avg: level + Double($0 % 3) * 0.4, peak: level + 12) })
        }
    }

    static func startServer(_ database: ServerDatabase, port: ReservedPort? = nil, environment: [String: String] = [:]) async throws -> ServerProcess {
        try await ServerProcess(database: database, port: port, environment: ["HEARCLEAR_RATE_LIMIT": "0"].merging(environment) { $1 })
    }

    /// Registers the clients and the venues.
    static func prepare(_ client: Client) async throws -> [String] {
        var tokens: [String] = []
        for _ in 0..<Self.clients { tokens.append(try await client.register()) }
        for venue in 0..<4 { try await client.addVenue("venue-\(venue)", token: tokens[0]) }
        return tokens
    }

    func expectConsistent(_ database: ServerDatabase, checkIns: Int, samples: Int) async throws {
        #expect(try await database.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM checkin") == "\(checkIns)|\(checkIns)")
        #expect(try await database.query(ServerDatabase.storedSeconds) == "\(samples)")
        if database.kind == .sqlite { #expect(try await database.query("PRAGMA integrity_check") == "ok") }
        let verified = try await Executable.run("hearclear-server", ["verify", "--database", database.location])
        #expect(verified.status == 0, "\(verified.output)")
    }

    @Test(arguments: StoreKind.allCases) func thirtyTwoClientsPostingFiftyCheckInsEachLoseNothing(store: StoreKind) async throws {
        let database = try await ServerDatabase(store, named: "load", in: folder)
        let server = try await Self.startServer(database)
        let client = Client(server: server.url)
        let tokens = try await Self.prepare(client)
        let statuses = await withTaskGroup(of: [Int].self) { group in
            for (index, token) in tokens.enumerated() {
                group.addTask {
                    var statuses: [Int] = []
                    for checkIn in Self.checkIns(client: index, count: 50) {
                        statuses.append(await client.send("POST", "api/v1/checkins", token: token, body: try! JSONEncoder().encode(checkIn))?.status ?? 0)
                    }
                    return statuses
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(statuses.count == 1600)
        #expect(statuses.allSatisfy { $0 == 201 }, "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
        await server.stop()
        try await expectConsistent(database, checkIns: 1600, samples: 1600 * 30)
    }

    /// SIGKILL (a crash) at three moments, and SIGTERM (a deploy): the server stops mid-load and is
    /// started again on the same file while the clients retry what was not acknowledged.
    @Test(arguments: StoreKind.allCases.flatMap { store in [(10, SIGKILL), (45, SIGKILL), (80, SIGKILL), (45, SIGTERM)].map { (store, $0.0, $0.1) } })
    func aServerStoppedMidLoadKeepsEveryAcknowledgedCheckInOnce(store: StoreKind, percent: Int, signal: Int32) async throws {
        let database = try await ServerDatabase(store, named: "crash-\(percent)-\(signal)", in: folder)
        let first = try await Self.startServer(database)
        let server = Locked<ServerProcess?>(nil)
        let client = Client(server: first.url)
        let port = first.reservedPort
        let tokens = try await Self.prepare(client)
        let perClient = 15
        let total = Self.clients * perClient
        let killAfter = total * percent / 100
        let acknowledged = Locked<Set<UUID>>([])
        let (acks, ackContinuation) = AsyncStream.makeStream(of: Void.self)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var count = 0
                for await _ in acks {
                    count += 1
                    if count == killAfter { break }
                }
                if signal == SIGTERM {
                    // Uploads in flight finish (or get no answer), the log is flushed, the store closed.
                    await first.stop()
                    #expect(first.log.split(separator: "\n").last?.contains("HearClear server stopped") == true, "\(first.log.suffix(300))")
                } else {
                    await first.kill()
                }
                let restarted = try await Self.startServer(database, port: port)
                server.withLock { $0 = restarted }
            }
            for (index, token) in tokens.enumerated() {
                group.addTask {
                    for checkIn in Self.checkIns(client: index, count: perClient) {
                        let body = try JSONEncoder().encode(checkIn)
                        // Retry what was not acknowledged, as the client app does; the id makes it idempotent.
                        while true {
                            if let answer = await client.send("POST", "api/v1/checkins", token: token, body: body) {
                                #expect([200, 201].contains(answer.status), "\(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
                                acknowledged.withLock { _ = $0.insert(checkIn.id) }
                                ackContinuation.yield()
                                break
                            }
                            try await Task.sleep(for: .milliseconds(20))  // the server is restarting
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        ackContinuation.finish()
        await server.withLock { $0 }?.stop()
        #expect(acknowledged.withLock { $0.count } == total)
        try await expectConsistent(database, checkIns: total, samples: total * 30)
    }

    @Test(arguments: StoreKind.allCases) func aBackupTakenDuringIngestRestoresAndVerifies(store: StoreKind) async throws {
        let database = try await ServerDatabase(store, named: "live", in: folder)
        let server = try await Self.startServer(database)
        let client = Client(server: server.url)
        let tokens = try await Self.prepare(client)
        let backup = folder.appendingPathComponent(store == .sqlite ? "backup.sqlite" : "backup.dump").path
        let backupResult = Locked<Executable.Result?>(nil)
        await withTaskGroup(of: Void.self) { group in
            for (index, token) in tokens.prefix(8).enumerated() {
                group.addTask {
                    for checkIn in Self.checkIns(client: index, count: 40) {
                        _ = await client.send("POST", "api/v1/checkins", token: token, body: try! JSONEncoder().encode(checkIn))
                    }
                }
            }
            group.addTask {
                let result = try? await Executable.run("hearclear-server", ["backup", backup, "--database", database.location])
                backupResult.withLock { $0 = result }
            }
        }
        #expect(backupResult.withLock { $0?.status } == 0)
        await server.stop()
        // Restore: the copy is a database of its own (SQLite) or pg_restore's input.
        let restored = try await ServerDatabase(store, named: "restored", in: folder)
        switch store {
        case .sqlite: try FileManager.default.copyItem(atPath: backup, toPath: restored.location)
        case .postgres:
            let loaded = try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/pg_restore"), ["--no-owner", "-d", restored.location, backup])
            #expect(loaded.status == 0, "\(loaded.errors)")
        }
        let checkIns = Int(try await restored.query("SELECT COUNT(*) FROM checkin")) ?? -1
        #expect((0...320).contains(checkIns))
        try await expectConsistent(restored, checkIns: checkIns, samples: checkIns * 30)
        let again = try await Executable.run("hearclear-server", ["backup", backup, "--database", database.location])
        #expect(again.status != 0 && again.errors.contains("exists already"))
        // Was: "SQLite error 14: unable to open database: … - while executing `VACUUM INTO ?`".
        let nowhere = folder.appendingPathComponent("no-such-folder/backup").path
        let misplaced = try await Executable.run("hearclear-server", ["backup", nowhere, "--database", database.location])
        #expect(misplaced.status != 0 && misplaced.errors.contains("cannot write \(nowhere): there is no folder \(folder.appendingPathComponent("no-such-folder").path)"), "\(misplaced.errors)")
    }

    @Test func aGzipBombIsRefusedAndTheServersMemoryStaysFlat() async throws {
        let server = try await Self.startServer(try await ServerDatabase(.sqlite, named: "bomb", in: folder))
        let client = Client(server: server.url)
        let token = try await client.register()
        // 1 GiB of zeros gzips to about 1 MiB: under the 4 MiB limit on the wire, far over it inflated.
        let bomb = folder.appendingPathComponent("bomb.gz")
        let made = try await Executable.run(program: URL(fileURLWithPath: "/bin/sh"), ["-c", "head -c 1073741824 /dev/zero | gzip -1 > '\(bomb.path)'"])
        #expect(made.status == 0)
        let before = server.peakMemoryKB()
        var request = URLRequest(url: server.url.appendingPathComponent("api/v1/checkins"))
        request.httpMethod = "POST"
        request.httpBody = try Data(contentsOf: bomb)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (body, response) = try await client.session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 413)
        #expect(String(decoding: body, as: UTF8.self).contains("larger than"))
        let growth = server.peakMemoryKB() - before
        #expect(growth < 64 * 1024, "peak memory grew by \(growth) kB")
        let (_, health) = try await client.session.data(from: server.url.appendingPathComponent("healthz"))
        #expect((health as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func tokensAndPasswordsNeverReachTheLog() async throws {
        let password = "admin-password-\(UUID().uuidString)"
        let server = try await Self.startServer(try await ServerDatabase(.sqlite, named: "log", in: folder), environment: ["HEARCLEAR_ADMIN_PASSWORD": password])
        let client = Client(server: server.url)
        let token = try await client.register()
        try await client.addVenue("logged", token: token)
        _ = await client.send("PUT", "api/v1/venues/logged", token: token + "wrong", body: Data("{}".utf8))
        var admin = URLRequest(url: server.url.appendingPathComponent("admin"))
        admin.setValue("Basic " + Data("admin:\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        let (_, page) = try await client.session.data(for: admin)
        #expect((page as? HTTPURLResponse)?.statusCode == 200)
        await server.stop()
        let log = server.log
        #expect(log.contains("PUT /api/v1/venues/logged 201"))
        #expect(log.contains("GET /admin 200"))
        for secret in [token, password, Data("admin:\(password)".utf8).base64EncodedString()] {
            #expect(!log.contains(secret))
        }
    }
}
