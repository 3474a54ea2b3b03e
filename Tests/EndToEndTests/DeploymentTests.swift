import Foundation
import HearClearCore
import LoopbackHTTP
import TestCluster
import TestSignals
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// docs/deploy.md's recipe on loopback: PostgreSQL, two servers started as the systemd unit starts
/// them (its `ExecStart`, the example environment and config), Debian's nginx with the shipped site
/// file (only its ports changed), and real `hearclear` clients talking to nginx.
@Suite struct DeploymentTests {
    let folder: URL
    let deploy = Executable.packageFolder.appendingPathComponent("deploy")

    init() throws {
        folder = try temporaryFolder()
    }

    /// A port nothing listens on now (bound, read, released).
    static func freePort() throws -> Int {
        let listener = try LoopbackListener { _ in }
        return listener.port
    }

    /// `hearclear-server@PORT` as systemd would start it.
    func unitInstance(port: Int, database: String) async throws -> ServerProcess {
        let unit = try String(contentsOf: deploy.appendingPathComponent("systemd/hearclear-server@.service"), encoding: .utf8)
        let execStart = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") }).dropFirst("ExecStart=".count)
        var words = execStart.split(separator: " ").map { $0.replacingOccurrences(of: "%i", with: "\(port)") }
        #expect(words.removeFirst() == "/usr/local/bin/hearclear-server")
        var environment: [String: String] = [:]
        for line in try String(contentsOf: deploy.appendingPathComponent("hearclear.env.example"), encoding: .utf8).split(separator: "\n")
        where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { environment[parts[0]] = parts[1] }
        }
        #expect(environment["HEARCLEAR_DATABASE"]?.hasPrefix("postgres://") == true)
        environment["HEARCLEAR_DATABASE"] = database
        environment["HEARCLEAR_CONFIG"] = deploy.appendingPathComponent("config.json").path
        return try await ServerProcess(
            executable: Executable.buildFolder.appendingPathComponent("hearclear-server"), arguments: words,
            environment: Executable.environment(adding: environment), logFile: folder.appendingPathComponent("server-\(port).log"))
    }

    /// nginx in the foreground with the shipped site file, listening on `port`.
    func nginx(port: Int, upstreams: [Int]) throws -> Process {
        var site = try String(contentsOf: deploy.appendingPathComponent("nginx/hearclear.conf"), encoding: .utf8)
        #expect(site.contains("127.0.0.1:8081") && site.contains("127.0.0.1:8082") && site.contains("listen 80;"))
        site = site.replacingOccurrences(of: "127.0.0.1:8081", with: "127.0.0.1:\(upstreams[0])")
            .replacingOccurrences(of: "127.0.0.1:8082", with: "127.0.0.1:\(upstreams[1])")
            .replacingOccurrences(of: "listen 80;", with: "listen 127.0.0.1:\(port);")
            .replacingOccurrences(of: "listen [::]:80;", with: "")
        let root = folder.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("temp"), withIntermediateDirectories: true)
        try site.write(to: root.appendingPathComponent("hearclear.conf"), atomically: true, encoding: .utf8)
        // What Debian's /etc/nginx/nginx.conf provides around sites-enabled, in the test's own folder.
        let main = """
            daemon off;
            user root;
            worker_processes 1;
            pid \(root.path)/nginx.pid;
            error_log \(root.path)/error.log;
            events { worker_connections 256; }
            http {
                access_log \(root.path)/access.log;
                client_body_temp_path \(root.path)/temp/body;
                proxy_temp_path \(root.path)/temp/proxy;
                fastcgi_temp_path \(root.path)/temp/fastcgi;
                uwsgi_temp_path \(root.path)/temp/uwsgi;
                scgi_temp_path \(root.path)/temp/scgi;
                include \(root.path)/hearclear.conf;
            }
            """
        try main.write(to: root.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-c", root.appendingPathComponent("nginx.conf").path, "-p", root.path]
        try process.run()
        return process
    }

    func hearclear(_ home: URL, _ arguments: [String]) async throws -> Executable.Result {
        try await Executable.run("hearclear", arguments, environment: clientEnvironment(in: home))
    }

    @Test func theRecipeServesRealClientsThroughNginxOverTwoServersAndOnePostgreSQL() async throws {
        let database = try await PostgresCluster.newDatabase()
        let ports = [try Self.freePort(), try Self.freePort()]
        var servers: [ServerProcess] = []
        for port in ports { servers.append(try await unitInstance(port: port, database: database)) }
        let nginxPort = try Self.freePort()
        let proxy = try nginx(port: nginxPort, upstreams: ports)
        defer { proxy.terminate() }
        let url = "http://127.0.0.1:\(nginxPort)"
        // nginx is ready when it answers; the servers already are. Each try is short, so that one
        // stalled try on a loaded machine does not use up the deadline.
        let deadline = ContinuousClock.now + .seconds(30)
        var ready = false, lastAnswer = "none"
        while !ready, ContinuousClock.now < deadline {
            var request = URLRequest(url: URL(string: "\(url)/healthz")!)
            request.timeoutInterval = 2
            do {
                let (body, response) = try await URLSession.shared.data(for: request)
                ready = body == Data("ok".utf8)
                lastAnswer = "\((response as? HTTPURLResponse)?.statusCode ?? 0) \(String(decoding: body.prefix(200), as: UTF8.self))"
            } catch {
                lastAnswer = "\(error)"
            }
            if !ready { try await Task.sleep(for: .milliseconds(50)) }  // polling, bounded by the deadline
        }
        #expect(
            ready,
            "nginx did not answer ok (last: \(lastAnswer)): \((try? String(contentsOf: folder.appendingPathComponent("nginx/error.log"), encoding: .utf8)) ?? "")")

        let recording = try temporaryFile(
            "deploy.wav", WAVWriter.data(Signal.sine(frequency: 1000, dBFS: -37, seconds: 30, sampleRate: 48_000), sampleRate: 48_000, format: .int16))
        let homes = (0..<4).map { folder.appendingPathComponent("client-\($0)") }
        for home in homes {
            let registered = try await hearclear(home, ["register", "--server", url, "--model", "Deploy Mic"])
            #expect(registered.status == 0, "\(registered.errors)")
        }
        let added = try await hearclear(homes[0], ["venue", "add", "deploy-bar", "--name", "Deploy Bar", "--lat", "51.5", "--lng", "-0.1", "--timezone", "Europe/London"])
        #expect(added.status == 0, "\(added.errors)")
        // Four clients at once, two check-ins each.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for home in homes {
                group.addTask {
                    for _ in 0..<2 {
                        let checkIn = try await hearclear(home, ["checkin", "deploy-bar", "--file", recording])
                        #expect(checkIn.status == 0 && checkIn.output.contains("accepted"), "\(checkIn.output)\(checkIn.errors)")
                    }
                }
            }
            try await group.waitForAll()
        }
        let loudness = try await hearclear(homes[1], ["loudness", "deploy-bar", "--json"])
        #expect(try JSONDecoder().decode(Loudness.self, from: Data(loudness.output.utf8)).overall.checkins == 8)
        // nginx spread the uploads over both servers.
        for server in servers {
            #expect(server.log.contains("POST /api/v2/checkins 201"), "server on \(server.port) stored nothing")
        }

        // A server gone: nginx sends its requests to the other, and no check-in waits.
        await servers[0].kill()
        for home in homes {
            let checkIn = try await hearclear(home, ["checkin", "deploy-bar", "--file", recording])
            #expect(checkIn.status == 0 && checkIn.output.contains("accepted"), "\(checkIn.output)\(checkIn.errors)")
        }
        #expect(try await PostgresCluster.psql(database, "SELECT COUNT(*), COUNT(DISTINCT id) FROM checkin") == ["12|12"])
        let verified = try await Executable.run("hearclear-server", ["verify", "--database", database])
        #expect(verified.status == 0, "\(verified.output)")
    }
}
