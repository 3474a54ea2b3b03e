import Foundation
import LoopbackHTTP
import HearClearCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an operator watches: `/metrics` on its own port, JSON log lines with request ids.
@Suite struct ObservabilityTests {
    let folder: URL

    init() throws {
        folder = try temporaryFolder()
    }

    func send(_ method: String, _ url: URL, token: String? = nil, requestID: String? = nil, body: Data? = nil) async throws -> (Int, HTTPURLResponse, Data) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let requestID { request.setValue(requestID, forHTTPHeaderField: "X-Request-Id") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, http, data)
    }

    /// A device, a venue and one accepted check-in of 60 samples.
    func populate(_ api: URL) async throws -> String {
        let (_, _, credentials) = try await send("POST", api.appendingPathComponent("devices"), body: Data(#"{"model": "Metered", "platform": "test"}"#.utf8))
        let token = try JSONDecoder().decode(DeviceCredentials.self, from: credentials).token
        let venue = try JSONEncoder().encode(VenueUpsert(name: "Bar", latitude: 0, longitude: 0, timezone: "UTC"))
        #expect(try await send("PUT", api.appendingPathComponent("venues/bar"), token: token, body: venue).0 == 201)
        let checkIn = CheckIn(
            id: UUID(), venueID: "bar", startedAt: Date().addingTimeInterval(-3600),
            samples: (0..<60).map { Sample(t: Double($0), avg: -45.37 + Double($0 % 2), peak: -30) })
        #expect(try await send("POST", api.appendingPathComponent("checkins"), token: token, body: try JSONEncoder().encode(checkIn)).0 == 201)
        return token
    }

    @Test func metricsAreServedOnTheirOwnPort() async throws {
        let server = try await ServerProcess(database: folder.appendingPathComponent("m.sqlite").path, arguments: ["--metrics-port", "0"])
        let announced = try #require(await server.logLine(containing: "Metrics on http://"))
        let metricsURL = try #require(URL(string: String(announced.split(separator: " ").first { $0.hasPrefix("http://") }!)))
        let api = server.url.appendingPathComponent("api/v1")
        _ = try await populate(api)
        _ = try await send("GET", api.appendingPathComponent("venues/bar/loudness"))
        _ = try await send("GET", api.appendingPathComponent("venues/bar/loudness"))
        // A request cut off in its head: counted before its connection closes, which is what the
        // read waits for.
        let cutOff = try LoopbackConnection(port: server.port)
        cutOff.send("POST /api/v1/checkins HTTP/1.1\r\nHost: x\r\nContent-Le")
        cutOff.finishSending()
        #expect(cutOff.readResponse().isEmpty)

        let (status, response, body) = try await send("GET", metricsURL)
        #expect(status == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = String(decoding: body, as: UTF8.self)
        for line in [
            #"hb_requests{http_route="/api/v1/checkins",http_request_method="POST",http_response_status_code="201"} 1"#,
            #"hb_requests{http_route="/api/v1/venues/{venue_id}",http_request_method="PUT",http_response_status_code="201"} 1"#,
            #"hearclear_checkins_stored_total{status="accepted",api="v1"} 1"#,
            #"hearclear_samples_stored_total 60"#,
            #"hearclear_answer_cache_total{result="miss"} 1"#,
            #"hearclear_answer_cache_total{result="hit"} 1"#,
            #"hearclear_requests_cut_off_total 1"#,
        ] {
            #expect(text.contains(line), "missing \(line)")
        }
        #expect(text.contains(#"http_server_request_duration_bucket{http_route="/api/v1/checkins""#))
        #expect(text.contains(#"hearclear_store_transaction_seconds_bucket{operation="store_checkin""#))
        // Not on the public listener.
        #expect(try await send("GET", server.url.appendingPathComponent("metrics")).0 == 404)
    }

    @Test func jsonLogLinesCarryRequestIdsAndNoSecrets() async throws {
        let server = try await ServerProcess(
            database: folder.appendingPathComponent("j.sqlite").path, arguments: ["--log-format", "json"])
        let api = server.url.appendingPathComponent("api/v1")
        let token = try await populate(api)
        let (_, kept, _) = try await send("GET", api.appendingPathComponent("venues/bar"), requestID: "trace-42.a_b:c")
        #expect(kept.value(forHTTPHeaderField: "X-Request-Id") == "trace-42.a_b:c")
        let (_, replaced, _) = try await send("GET", api.appendingPathComponent("venues/bar"), requestID: String(repeating: "x", count: 200))
        let generated = try #require(replaced.value(forHTTPHeaderField: "X-Request-Id"))
        #expect(generated.count >= 17 && generated.allSatisfy(\.isHexDigit), "\(generated)")
        await server.stop()

        let lines = server.log.split(separator: "\n").map(String.init)
        var requestLines = 0
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
            #expect(object["timestamp"] is String && object["level"] is String && object["message"] is String, "\(line)")
            if let message = object["message"] as? String, message.hasPrefix("GET ") || message.hasPrefix("POST ") || message.hasPrefix("PUT ") {
                requestLines += 1
                #expect(object["request_id"] is String, "\(line)")
            }
            #expect(!line.contains(token))
        }
        #expect(requestLines == 5)
        #expect(lines.contains { $0.contains(#""request_id":"trace-42.a_b:c""#) })
        #expect(lines.contains { $0.contains(#""request_id":"\#(generated)""#) })
        // The levels carry a decimal point, which no id or timestamp of a log line has.
        #expect(!lines.contains { $0.contains("45.37") || $0.contains("44.37") || $0.contains("samples") }, "a body reached the log")
    }
}
