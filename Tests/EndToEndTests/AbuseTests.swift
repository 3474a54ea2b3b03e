import Foundation
import LoopbackHTTP
import HearClearCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Clients that would hold the server: slow senders are cut off, uploads past the cap turned away.
@Suite struct AbuseTests {
    let folder: URL

    init() throws {
        folder = try temporaryFolder()
    }

    func server(config: String) async throws -> (ServerProcess, token: String) {
        let file = folder.appendingPathComponent("config.json")
        try Data(config.utf8).write(to: file)
        let server = try await ServerProcess(
            database: folder.appendingPathComponent("abuse.sqlite").path, environment: ["HEARCLEAR_CONFIG": file.path, "HEARCLEAR_RATE_LIMIT": "0"])
        let connection = try LoopbackConnection(port: server.port)
        let body = #"{"model": "abuser", "platform": "linux"}"#
        connection.send("POST /api/v1/devices HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let response = connection.readResponse()
        let json = String(response[response.range(of: "\r\n\r\n")!.upperBound...])
        return (server, try JSONDecoder().decode(DeviceCredentials.self, from: Data(json.utf8)).token)
    }

    func uploadHead(token: String, length: Int) -> String {
        "POST /api/v1/checkins HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
    }

    @Test func aClientSendingOneByteAtATimeIsCutOff() async throws {
        let (server, token) = try await server(config: #"{"body_timeout_s": 1}"#)
        let connection = try LoopbackConnection(port: server.port)
        connection.send(uploadHead(token: token, length: 1000))
        // A byte every 100 ms: the body would take 100 s; the server allows it one.
        let trickle = Thread {
            for _ in 0..<1000 {
                guard connection.send("{") else { return }
                Thread.sleep(forTimeInterval: 0.1)  // the slowness under test, not synchronisation
            }
        }
        trickle.start()
        let response = connection.readResponse()
        #expect(response.hasPrefix("HTTP/1.1 408"), "\(response)")
        #expect(response.contains("took longer than"))
        let health = try LoopbackConnection(port: server.port)
        health.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(health.readResponse().hasPrefix("HTTP/1.1 200"))
    }

    @Test func uploadsPastTheCapAreTurnedAwayWithRetryAfter() async throws {
        let (server, token) = try await server(config: #"{"max_concurrent_uploads": 1, "body_timeout_s": 60}"#)
        // Two uploads that start and stall: whichever the server takes first holds the only place,
        // so the other is answered at once, whatever order they arrive in.
        let first = try LoopbackConnection(port: server.port), second = try LoopbackConnection(port: server.port)
        for connection in [first, second] { connection.send(uploadHead(token: token, length: 1000) + "{") }
        let deadline = ContinuousClock.now + .seconds(30)
        var answered: [LoopbackConnection] = []
        while answered.isEmpty && ContinuousClock.now < deadline {
            answered = [first, second].filter { $0.isReadable(within: .milliseconds(100)) }
        }
        #expect(answered.count == 1, "\(answered.count) of the two stalled uploads were answered")
        let answer = answered.first?.readResponse() ?? ""
        #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer)")
        #expect(answer.lowercased().contains("retry-after: 1"))
        #expect(answer.contains("handling 1 uploads already"))
    }

    @Test func aHeadTrickledALineAtATimeIsCutOff() async throws {
        let (server, _) = try await server(config: #"{"header_timeout_s": 1}"#)
        let connection = try LoopbackConnection(port: server.port)
        connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
        // A header line every 200 ms: the head would never end; the server allows it a second.
        let trickle = Thread {
            for line in 0..<300 {
                guard connection.send("X-Line-\(line): 1\r\n") else { return }
                Thread.sleep(forTimeInterval: 0.2)  // the slowness under test, not synchronisation
            }
        }
        trickle.start()
        #expect(connection.isReadable(within: .seconds(30)), "the trickling connection was held")
        #expect(connection.readResponse().isEmpty, "closed without an answer")
        let health = try LoopbackConnection(port: server.port)
        health.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(health.readResponse().hasPrefix("HTTP/1.1 200"))
    }

    @Test func anAddressHoldsAtMostItsShareOfConnections() async throws {
        let (server, _) = try await server(config: #"{"max_connections_per_address": 3}"#)
        // Three connections held open (a request each, so each is surely accepted and counted).
        // The setup's own connections (registration, readiness) are counted out when the server
        // sees them close, which may be just after: until then a new one may be refused, so each
        // is tried again until served. A connection left over only makes the fourth's refusal likelier.
        var held: [LoopbackConnection] = []
        let heldBy = ContinuousClock.now + .seconds(30)
        while held.count < 3 && ContinuousClock.now < heldBy {
            let connection = try LoopbackConnection(port: server.port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            if connection.readResponse().hasPrefix("HTTP/1.1 200") { held.append(connection) }
        }
        try #require(held.count == 3, "only \(held.count) connections were served")
        let fourth = try LoopbackConnection(port: server.port)
        fourth.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(fourth.readResponse().isEmpty, "a fourth connection from the same address was served")
        // One closes (its socket, on deinit): its place is free again.
        held.removeFirst()
        var served = false
        let deadline = ContinuousClock.now + .seconds(30)
        while !served && ContinuousClock.now < deadline {
            // The server counts the closed connection out when it sees it close, which may be just after.
            let again = try LoopbackConnection(port: server.port)
            again.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            served = again.readResponse().hasPrefix("HTTP/1.1 200")
        }
        #expect(served)
    }

    /// A request whose input ends before it does (the client went away, or the server stopping shut
    /// its input after the grace) is not invalid HTTP: a 400 would make a client set aside an upload
    /// that was fine. It gets no answer, so the client sends it again.
    @Test(arguments: ["in its head", "in its body"]) func aRequestCutOffByTheEndOfInputIsNotAnswered(cut: String) async throws {
        let (server, token) = try await server(config: "{}")
        let connection = try LoopbackConnection(port: server.port)
        let head = uploadHead(token: token, length: 1000)
        connection.send(cut == "in its head" ? String(head.prefix(40)) : head + #"{"id": "#)
        connection.finishSending()
        #expect(connection.readResponse().isEmpty)
        let health = try LoopbackConnection(port: server.port)
        health.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(health.readResponse().hasPrefix("HTTP/1.1 200"))
        guard cut == "in its body" else { return }
        // The handler that was reading the body logs what happened to it, not an answer nobody got.
        // Stopping waits for it.
        await server.stop()
        #expect(server.log.contains("POST /api/v1/checkins cut off before its body was complete"), "\(server.log)")
        #expect(!server.log.contains("POST /api/v1/checkins 400"), "\(server.log)")
    }

    /// An admin form whose connection drops mid-body: "Cheap Mic Pro" cut to "Cheap Mic" still
    /// decodes, and was applied, calibrating a model nobody named.
    @Test func anAdminFormCutShortChangesNothing() async throws {
        let (server, _) = try await server(config: #"{"admin_password": "cut-short-password"}"#)
        let authorization = "Authorization: Basic \(Data("admin:cut-short-password".utf8).base64EncodedString())\r\n"
        let page = try LoopbackConnection(port: server.port)
        page.send("GET /admin/calibration HTTP/1.1\r\nHost: x\r\n\(authorization)Connection: close\r\n\r\n")
        let response = page.readResponse()
        let cookie = try #require(response.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: ") })
            .dropFirst("set-cookie: ".count).prefix { $0 != ";" }
        let csrf = try #require(response.range(of: #"name="csrf" value=""#).map { response[$0.upperBound...].prefix { $0 != "\"" } })
        let form = "csrf=\(csrf)&offset=122&model=Cheap+Mic+Pro"
        let cut = try LoopbackConnection(port: server.port)
        cut.send(
            "POST /admin/calibration HTTP/1.1\r\nHost: x\r\n\(authorization)Cookie: \(cookie)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n\r\n\(form.dropLast(4))")
        cut.finishSending()
        #expect(cut.readResponse().isEmpty)
        // Stopping waits for the handler; the store is read again by a server of its own.
        await server.stop()
        #expect(server.log.contains("POST /admin/calibration cut off before its body was complete"), "\(server.log)")
        let again = try await ServerProcess(database: folder.appendingPathComponent("abuse.sqlite").path)
        let check = try LoopbackConnection(port: again.port)
        check.send("GET /api/v2/calibration?model=Cheap%20Mic HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let answer = check.readResponse()
        #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains(#""source":"default""#), "\(answer)")
    }

    @Test func whatTheHTTPParserRefusesIsSaidInWords() async throws {
        let (server, _) = try await server(config: "{}")
        for (request, words) in [
            ("GET /healthz HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n", "a header name or value holds a character HTTP does not allow"),
            ("POST /api/v1/devices HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\n", "Content-Length"),
            ("GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n", "not valid HTTP/1.1"),
        ] {
            let connection = try LoopbackConnection(port: server.port)
            connection.send(request)
            let response = connection.readResponse()
            #expect(response.hasPrefix("HTTP/1.1 400"), "\(request.debugDescription): \(response)")
            #expect(response.contains(#"{"error":{"message":"the request is not valid HTTP/1.1"#), "\(response)")
            #expect(response.contains(words), "\(response)")
        }
    }
}
