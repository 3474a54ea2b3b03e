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

    /// The ports the site listens on in the test: its HTTPS server, the same server in plain HTTP
    /// for the command-line clients (which trust only the system's certificate authorities), and
    /// the plain-HTTP server that sends browsers to HTTPS.
    struct SitePorts {
        let https: Int, plain: Int, redirect: Int
    }

    /// nginx in the foreground with the shipped site file, its certificate one made for localhost
    /// (`certificate.pem` in the nginx folder).
    func nginx(ports: SitePorts, upstreams: [Int]) async throws -> Process {
        var site = try String(contentsOf: deploy.appendingPathComponent("nginx/hearclear.conf"), encoding: .utf8)
        #expect(site.contains("127.0.0.1:8081") && site.contains("127.0.0.1:8082") && site.contains("listen 80;") && site.contains("listen 443 ssl http2;"))
        let root = folder.appendingPathComponent("nginx")
        site = site.replacingOccurrences(of: "127.0.0.1:8081", with: "127.0.0.1:\(upstreams[0])")
            .replacingOccurrences(of: "127.0.0.1:8082", with: "127.0.0.1:\(upstreams[1])")
            .replacingOccurrences(of: "listen 80;", with: "listen 127.0.0.1:\(ports.redirect);")
            .replacingOccurrences(of: "listen [::]:80;", with: "")
            .replacingOccurrences(of: "listen 443 ssl http2;", with: "listen 127.0.0.1:\(ports.https) ssl http2;\n    listen 127.0.0.1:\(ports.plain);")
            .replacingOccurrences(of: "listen [::]:443 ssl http2;", with: "")
            .replacingOccurrences(of: "/etc/ssl/hearclear/fullchain.pem", with: root.appendingPathComponent("certificate.pem").path)
            .replacingOccurrences(of: "/etc/ssl/hearclear/privkey.pem", with: root.appendingPathComponent("key.pem").path)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("temp"), withIntermediateDirectories: true)
        let certificate = try await Executable.run(
            program: URL(fileURLWithPath: "/usr/bin/openssl"),
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
             "-keyout", root.appendingPathComponent("key.pem").path, "-out", root.appendingPathComponent("certificate.pem").path])
        #expect(certificate.status == 0, "\(certificate.errors)")
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

    /// curl's answer head, without the body.
    func curl(_ arguments: [String]) async throws -> Executable.Result {
        try await Executable.run(program: URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "-o", "/dev/null", "-D", "-"] + arguments)
    }

    func hearclear(_ home: URL, _ arguments: [String]) async throws -> Executable.Result {
        try await Executable.run("hearclear", arguments, environment: clientEnvironment(in: home))
    }

    @Test func theRecipeServesRealClientsThroughNginxOverTwoServersAndOnePostgreSQL() async throws {
        let database = try await PostgresCluster.newDatabase()
        // Kept until the test ends, so that nothing else takes them before nginx and the servers listen.
        let reserved = try (0..<5).map { _ in try ReservedPort() }
        defer { withExtendedLifetime(reserved) {} }
        let ports = reserved[0..<2].map(\.port)
        var servers: [ServerProcess] = []
        for port in ports { servers.append(try await unitInstance(port: port, database: database)) }
        let site = SitePorts(https: reserved[2].port, plain: reserved[3].port, redirect: reserved[4].port)
        let proxy = try await nginx(ports: site, upstreams: ports)
        defer { proxy.terminate() }
        let url = "http://127.0.0.1:\(site.plain)"
        // nginx is ready when it answers; the servers already are. Each try is short, so that one
        // stalled try on a loaded machine does not use up the deadline.
        // 120 s: with every end-to-end suite loading both cores, nginx once took longer than 30 s to listen.
        let deadline = ContinuousClock.now + .seconds(120)
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

        // HTTPS with the site's certificate, HSTS on its answers (the servers trust nginx's
        // X-Forwarded-Proto), and plain HTTP sending browsers there.
        let certificate = folder.appendingPathComponent("nginx/certificate.pem").path
        let secure = try await curl(["--cacert", certificate, "https://localhost:\(site.https)/venues"])
        #expect(secure.output.hasPrefix("HTTP/2 200") && secure.output.lowercased().contains("strict-transport-security: max-age=31536000"), "\(secure.output)\(secure.errors)")
        let redirected = try await curl(["http://localhost:\(site.redirect)/venues/corner/measure"])
        #expect(redirected.output.hasPrefix("HTTP/1.1 308") && redirected.output.lowercased().contains("location: https://localhost/venues/corner/measure"), "\(redirected.output)")
        #expect(!(try await curl(["\(url)/venues"])).output.lowercased().contains("strict-transport-security"))

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
                    // Each its own recording: one checked in again would be the same check-in.
                    for minute in 0..<2 {
                        let checkIn = try await hearclear(home, ["checkin", "deploy-bar", "--file", recording, "--started-at", "2026-11-20T20:0\(minute):00Z"])
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
            let checkIn = try await hearclear(home, ["checkin", "deploy-bar", "--file", recording, "--started-at", "2026-11-20T20:02:00Z"])
            #expect(checkIn.status == 0 && checkIn.output.contains("accepted"), "\(checkIn.output)\(checkIn.errors)")
        }
        #expect(try await PostgresCluster.psql(database, "SELECT COUNT(*), COUNT(DISTINCT id) FROM checkin") == ["12|12"])
        let verified = try await Executable.run("hearclear-server", ["verify", "--database", database])
        #expect(verified.status == 0, "\(verified.output)")
    }
}
