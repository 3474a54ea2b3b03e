import Foundation
import HearClearCore
import LoopbackHTTP
import TestCluster
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Several `hearclear-server` processes on one PostgreSQL answer exactly as one would, and survive
/// PostgreSQL going away (docs/deploy.md, docs/reliability.md). Tests that crash PostgreSQL start
/// a cluster of their own, so the other suites' cluster stays up.
@Suite(.serialized) struct PostgresDeploymentTests {
    typealias Client = ReliabilityTests.Client
    let folder: URL

    init() throws {
        folder = try temporaryFolder()
    }

    func server(_ database: String) async throws -> ServerProcess {
        try await ServerProcess(database: database, environment: ["HEARCLEAR_RATE_LIMIT": "0"], logFolder: folder)
    }

    /// `count` check-ins for venue `bar` in the same local weekday-hour over as many weeks, every
    /// fifth far louder than the rest, so the outlier rule has something to decide.
    static func checkIns(count: Int) -> [CheckIn] {
        (0..<count).map { index in
            let start = Date(timeIntervalSince1970: 1_760_000_000 + Double(index) * 7 * 86_400 + Double(index % 5) * 60)
            let level = index % 5 == 4 ? -12.0 : -45 + Double(index % 3)
            return CheckIn(
                id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, UInt8(index))), venueID: "bar", startedAt: start, calibrationDB: 110,
                samples: (0..<60).map { Sample(t: Double($0), avg: level + Double($0 % 3) * 0.3, peak: level + 10) })
        }
    }

    func prepare(_ client: Client) async throws -> String {
        let token = try await client.register()
        try await client.addVenue("bar", token: token)
        return token
    }

    @Test func twoServersStoringForOneVenueAtOnceAnswerAsOneServerWould() async throws {
        let database = try await PostgresCluster.newDatabase()
        let servers = [try await server(database), try await server(database)]
        let clients = servers.map { Client(server: $0.url) }
        let token = try await prepare(clients[0])
        let checkIns = Self.checkIns(count: 40)
        let bodies = try checkIns.map { try JSONEncoder().encode($0) }
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for (index, body) in bodies.enumerated() {
                group.addTask { await clients[index % 2].send("POST", "api/v1/checkins", token: token, body: body)?.status }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 201 }, "\(statuses)")

        // The same check-ins, one by one, to one server on SQLite.
        let one = try await server(folder.appendingPathComponent("one.sqlite").path)
        let reference = Client(server: one.url)
        let referenceToken = try await prepare(reference)
        for body in bodies { #expect(await reference.send("POST", "api/v1/checkins", token: referenceToken, body: body)?.status == 201) }

        let expected = try #require(await reference.send("GET", "api/v1/venues/bar/loudness", body: Data()))
        for client in clients {
            let answer = try #require(await client.send("GET", "api/v1/venues/bar/loudness", body: Data()))
            #expect(answer.status == 200 && answer.body == expected.body)
        }
        let statusesOfOne = try await sqlite(folder.appendingPathComponent("one.sqlite").path, "SELECT id || '|' || status FROM checkin ORDER BY id")
        let statusesOfTwo = try await PostgresCluster.psql(database, "SELECT id || '|' || status FROM checkin ORDER BY id").joined(separator: "\n")
        #expect(statusesOfOne == statusesOfTwo)
        #expect(statusesOfTwo.contains("outlier"), "the test means nothing without outliers to decide")
        let verified = try await Executable.run("hearclear-server", ["verify", "--database", database])
        #expect(verified.status == 0, "\(verified.output)")
    }

    @Test func theSameCheckInPostedToTwoServersAtOnceIsStoredOnce() async throws {
        let database = try await PostgresCluster.newDatabase()
        let servers = [try await server(database), try await server(database)]
        let clients = servers.map { Client(server: $0.url) }
        let token = try await prepare(clients[0])
        for checkIn in Self.checkIns(count: 12) {
            let body = try JSONEncoder().encode(checkIn)
            async let first = clients[0].send("POST", "api/v1/checkins", token: token, body: body)
            async let second = clients[1].send("POST", "api/v1/checkins", token: token, body: body)
            let answers = [try #require(await first), try #require(await second)]
            #expect(answers.map(\.status).sorted() == [200, 201])
            #expect(answers[0].body == answers[1].body, "both answers carry the same receipt")
        }
        #expect(try await PostgresCluster.psql(database, "SELECT COUNT(*), COUNT(DISTINCT id) FROM checkin") == ["12|12"])
    }

    @Test func aCachedAnswerIsDroppedWithinASecondOfAnotherServersWrite() async throws {
        let database = try await PostgresCluster.newDatabase()
        let servers = [try await server(database), try await server(database)]
        let clients = servers.map { Client(server: $0.url) }
        let token = try await prepare(clients[0])
        // The first four are alike: each counts, so each changes the answer.
        for (index, checkIn) in Self.checkIns(count: 4).enumerated() {
            #expect(await clients[1].send("POST", "api/v1/checkins", token: token, body: try JSONEncoder().encode(checkIn))?.status == 201)
            // Server 0 answers from its cache until it hears of server 1's commit.
            let deadline = ContinuousClock.now + .seconds(1)
            var counted = await Self.checkInsCounted(by: clients[0])
            while counted != index + 1, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))  // polling, bounded by the deadline
                counted = await Self.checkInsCounted(by: clients[0])
            }
            #expect(counted == index + 1, "check-in \(index): server 0 still counts \(String(describing: counted)) after a second")
        }
    }

    /// The check-ins of venue `bar`'s overall cell, as a server answers.
    static func checkInsCounted(by client: Client) async -> Int? {
        guard let answer = await client.send("GET", "api/v1/venues/bar/loudness", body: Data()), answer.status == 200 else { return nil }
        return (try? JSONDecoder().decode(Loudness.self, from: answer.body))?.overall.checkins
    }

    @Test func postgreSQLGoneIs503AtOnceAndTheServerRecoversByItself() async throws {
        let cluster = try await PrivateCluster()
        let database = try await cluster.newDatabase()
        let running = try await server(database)
        let client = Client(server: running.url)
        let token = try await prepare(client)
        let checkIns = Self.checkIns(count: 3)
        #expect(await client.send("POST", "api/v1/checkins", token: token, body: try JSONEncoder().encode(checkIns[0]))?.status == 201)
        let cached = try #require(await client.send("GET", "api/v1/venues/bar/loudness", body: Data()))
        // A change no server announced: only dropping every cached answer after a reconnect shows it.
        _ = try await PostgresCluster.psql(database, "UPDATE loudness SET samples = samples + 1000 WHERE venue_id = 'bar'")
        #expect(await client.send("GET", "api/v1/venues/bar/loudness", body: Data())?.body == cached.body)

        try await cluster.crash()
        // Kept for the resumption: with every suite running, a port left free can be taken.
        #expect(!LoopbackSocket.canBind(cluster.port), "the crashed cluster's port could be taken")
        for (method, path, body) in [("GET", "api/v1/venues/bar", Data()), ("POST", "api/v1/checkins", try JSONEncoder().encode(checkIns[1]))] {
            let start = ContinuousClock.now
            let answer = try #require(await client.send(method, path, token: token, body: body))
            #expect(answer.status == 503, "\(method) \(path): \(answer.status)")
            #expect(ContinuousClock.now - start < .seconds(5), "\(method) \(path) hung for \(ContinuousClock.now - start)")
        }
        #expect(await client.send("GET", "healthz", body: Data())?.status == 503)

        try await cluster.resume()
        let deadline = ContinuousClock.now + .seconds(20)
        while await client.send("GET", "healthz", body: Data())?.status != 200, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))  // polling, bounded by the deadline
        }
        #expect(await client.send("GET", "healthz", body: Data())?.status == 200)
        let fresh = try #require(await client.send("GET", "api/v1/venues/bar/loudness", body: Data()))
        #expect(fresh.status == 200 && fresh.body != cached.body, "the answer cached before the reconnect is still served")
        #expect(await client.send("POST", "api/v1/checkins", token: token, body: try JSONEncoder().encode(checkIns[1]))?.status == 201)
        #expect(!running.log.contains(" 500 "), "\(running.log.suffix(2000))")
    }

    /// 2 servers under 32 clients; one server SIGKILLed at a quarter of the load, PostgreSQL
    /// crashed and restarted at half. Clients retry what was not acknowledged on the other server.
    @Test func twoServersLoseNothingWhenOneIsKilledAndPostgreSQLRestarts() async throws {
        let cluster = try await PrivateCluster()
        let database = try await cluster.newDatabase()
        let servers = [try await server(database), try await server(database)]
        let clients = servers.map { Client(server: $0.url) }
        let tokens = try await ReliabilityTests.prepare(clients[0])
        let perClient = 15
        let total = ReliabilityTests.clients * perClient
        let acknowledged = Locked<Set<UUID>>([])
        let unexpected = Locked<[Int]>([])
        let (acks, ackContinuation) = AsyncStream.makeStream(of: Void.self)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var count = 0
                for await _ in acks {
                    count += 1
                    if count == total / 4 { await servers[0].kill() }
                    if count == total / 2 {
                        try await cluster.crash()
                        try await cluster.resume()
                        break
                    }
                }
            }
            for (index, token) in tokens.enumerated() {
                group.addTask {
                    var attempt = index
                    for checkIn in ReliabilityTests.checkIns(client: index, count: perClient) {
                        let body = try JSONEncoder().encode(checkIn)
                        while true {
                            attempt += 1
                            let answer = await clients[attempt % 2].send("POST", "api/v1/checkins", token: token, body: body)
                            if let answer, [200, 201].contains(answer.status) {
                                acknowledged.withLock { _ = $0.insert(checkIn.id) }
                                ackContinuation.yield()
                                break
                            }
                            if let answer, answer.status != 503 { unexpected.withLock { $0.append(answer.status) } }
                            try await Task.sleep(for: .milliseconds(20))  // back off, then the other server
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        ackContinuation.finish()
        #expect(unexpected.withLock { $0 }.isEmpty, "answers other than 200, 201 and 503: \(unexpected.withLock { $0 })")
        #expect(acknowledged.withLock { $0.count } == total)
        #expect(try await PostgresCluster.psql(database, "SELECT COUNT(*), COUNT(DISTINCT id) FROM checkin") == ["\(total)|\(total)"])
        #expect(try await PostgresCluster.psql(database, ServerDatabase.storedSeconds) == ["\(total * 30)"])
        let verified = try await Executable.run("hearclear-server", ["verify", "--database", database])
        #expect(verified.status == 0, "\(verified.output)")
        // The survivor still stops when asked, within its 10 s grace and a margin.
        let stopped = await servers[1].stop(within: .seconds(20))
        #expect(stopped, "SIGTERM did not stop the server after PostgreSQL restarted; it logged (answered check-ins left out): \(servers[1].log.split(separator: "\n").filter { !$0.contains("POST /api/v1/checkins 20") }.suffix(40).joined(separator: "\n"))")
        if !stopped { await servers[1].kill() }
    }
}
