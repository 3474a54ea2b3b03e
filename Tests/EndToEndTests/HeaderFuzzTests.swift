import Foundation
import LoopbackHTTP
import Testing

/// Every header the server reads, sent empty, `;`-only, twice, huge and in bytes that are not
/// ASCII, to a real server process: one such request (an empty `Content-Type`) used to trap and
/// take the whole server down. Each must get an answer that is not a 5xx (or a closed connection,
/// for what the HTTP parser itself refuses), and the server must answer `/healthz` afterwards.
@Suite struct HeaderFuzzTests {
    static let headers = [
        "Content-Type", "Content-Encoding", "Accept-Encoding", "Authorization", "Cookie", "X-Forwarded-For", "X-Forwarded-Proto", "Origin",
        "Content-Length", "Host",
    ]

    /// The values each header is sent with; nil stands for the header given twice.
    static let values: [[UInt8]?] = [
        [], Array(";".utf8), Array(";;;".utf8), Array(" ; , ;".utf8), Array(",".utf8), Array("=".utf8), Array("Basic".utf8), Array("Bearer ".utf8),
        Array("Basic !!!".utf8), Array("gzip;q=x, ;, br".utf8), Array(String(repeating: "a;", count: 30_000).utf8),
        Array("café ☕".utf8), [0xE9, 0xFF, 0xFE], [0x80], nil,
    ]

    static let routes: [(method: String, path: String, body: String)] = [
        ("POST", "/api/v1/devices", #"{"model": "m", "platform": "p"}"#),
        ("POST", "/api/v1/checkins", "{}"),
        ("GET", "/api/v2/venues/v1/loudness", ""),
        ("GET", "/venues?q=a+b", ""),
        ("GET", "/admin", ""),
        ("POST", "/admin/devices/00000000-0000-0000-0000-000000000000/ban", "banned=1&csrf=x"),
    ]

    func request(_ route: (method: String, path: String, body: String), header: String, value: [UInt8]?) -> [UInt8] {
        var lines = ["\(route.method) \(route.path) HTTP/1.1"]
        if header != "Host" { lines.append("Host: 127.0.0.1") }
        if header != "Content-Type" { lines.append("Content-Type: application/json") }
        if header != "Content-Length" { lines.append("Content-Length: \(route.body.utf8.count)") }
        if header != "Authorization" { lines.append("Authorization: Basic \(Data("admin:fuzzing-password".utf8).base64EncodedString())") }
        var bytes = Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
        if let value {
            bytes += Array("\(header): ".utf8) + value + Array("\r\n".utf8)
        } else {
            let sample = header == "Content-Length" ? "\(route.body.utf8.count)" : "gzip"
            bytes += Array("\(header): \(sample)\r\n\(header): \(sample == "gzip" ? "application/json" : "0")\r\n".utf8)
        }
        return bytes + Array("Connection: close\r\n\r\n\(route.body)".utf8)
    }

    @Test func noHeaderValueTakesTheServerDown() async throws {
        let folder = try temporaryFolder()
        let config = folder.appendingPathComponent("config.json")
        try Data(#"{"admin_password": "fuzzing-password", "trusted_proxies": ["127.0.0.1"], "body_timeout_s": 5}"#.utf8).write(to: config)
        let server = try await ServerProcess(database: folder.appendingPathComponent("fuzz.sqlite").path, environment: ["HEARCLEAR_CONFIG": config.path])
        defer { Task { await server.stop() } }
        var answered = 0
        for route in Self.routes {
            for header in Self.headers {
                for value in Self.values {
                    let connection = try LoopbackConnection(port: server.port)
                    connection.send(request(route, header: header, value: value))
                    let response = connection.readResponse()
                    let what = "\(route.method) \(route.path) with \(header): \(value.map { String(decoding: $0.prefix(20), as: UTF8.self) } ?? "twice")"
                    // The HTTP parser closes on what it cannot read; anything answered is no 5xx.
                    if let status = response.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) {
                        #expect(status < 500, "\(what): \(response.prefix(300))")
                        answered += 1
                    }
                    #expect(server.process.isRunning, "\(what) stopped the server")
                    guard server.process.isRunning else { return }
                }
            }
        }
        #expect(answered > Self.routes.count * Self.headers.count * Self.values.count / 2)
        let health = try LoopbackConnection(port: server.port)
        health.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(health.readResponse().hasPrefix("HTTP/1.1 200"))
        #expect(!server.log.contains("Fatal error"))
    }
}
