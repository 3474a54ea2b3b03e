import Foundation
import HearClearCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestCluster
import Testing

@testable import HearClearServer

/// Input meant to break things: every answer is a 4xx with a JSON message, nothing is half-stored,
/// and the server keeps serving.
@Suite struct HostileInputTests {
    func withApp(_ store: StoreKind, _ test: @Sendable (any TestClientProtocol, TemporaryDatabase, String) async throws -> Void) async throws {
        let database = try await TemporaryDatabase(store)
        let app = Application(router: try await buildRouter(store: database.opened, settings: ServerSettings(rateLimit: 0), logger: quietLogger), logger: quietLogger)
        try await app.test(.router) { client in
            let token = try await client.registerDevice()
            _ = try await client.putVenue("v1", token: token)
            try await test(client, database, token)
            // Still serving.
            try await client.execute(uri: "/healthz", method: .get) { response throws in #expect(response.status == .ok) }
        }
    }

    func expectJSONError(_ response: TestResponse, _ statuses: [HTTPResponse.Status], _ what: String) throws {
        #expect(statuses.contains(response.status), "\(what): \(response.status)")
        #expect(!(try errorMessage(response)).isEmpty, "\(what)")
    }

    func checkInJSON(samples: String = #"[{"t": 0, "avg": -40, "peak": -30}]"#, venue: String = "v1") -> String {
        #"{"id": "\#(UUID().wireString)", "venue_id": "\#(venue)", "started_at": "2026-11-16T20:00:00Z", "samples": \#(samples)}"#
    }

    @Test(arguments: StoreKind.allCases) func malformedNumbersAndStructuresAre400(store: StoreKind) async throws {
        try await withApp(store) { client, database, token in
            let nested = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            let cases: [(String, String)] = [
                ("deeply nested arrays", nested),
                ("deeply nested samples", checkInJSON(samples: nested)),
                ("NaN", checkInJSON(samples: #"[{"t": 0, "avg": NaN, "peak": 0}]"#)),
                ("Infinity", checkInJSON(samples: #"[{"t": 0, "avg": -Infinity, "peak": Infinity}]"#)),
                ("huge number", checkInJSON(samples: #"[{"t": 1e400, "avg": -40, "peak": -30}]"#)),
                ("long number", checkInJSON(samples: #"[{"t": 0, "avg": -4\#(String(repeating: "0", count: 10_000)), "peak": 0}]"#)),
                ("string for number", checkInJSON(samples: #"[{"t": "0", "avg": -40, "peak": -30}]"#)),
                ("object for array", #"{"id": "\#(UUID().wireString)", "venue_id": "v1", "started_at": "2026-11-16T20:00:00Z", "samples": {}}"#),
                ("bare value", "42"),
                ("empty body", ""),
            ]
            for (what, body) in cases {
                let response = try await client.execute(uri: "/api/v1/checkins", method: .post, headers: bearer(token), body: ByteBuffer(string: body))
                try expectJSONError(response, [.badRequest, .unprocessableContent], what)
            }
            let invalidUTF8 = try await client.execute(uri: "/api/v1/checkins", method: .post, headers: bearer(token), body: ByteBuffer(bytes: [0x7B, 0xFF, 0xFE, 0x7D]))
            try expectJSONError(invalidUTF8, [.badRequest], "invalid UTF-8 bytes")
            #expect(try await database.count("checkin") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func hugeBodiesAreRefusedBeforeTheyAreRead(store: StoreKind) async throws {
        try await withApp(store) { client, database, token in
            let hundredMegabytes = ByteBuffer(repeating: UInt8(ascii: " "), count: 100 * 1024 * 1024)
            let response = try await client.execute(uri: "/api/v1/checkins", method: .post, headers: bearer(token), body: hundredMegabytes)
            try expectJSONError(response, [.contentTooLarge], "100 MB body")
            #expect(try await database.count("checkin") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func stringsWithSQLAndControlCharactersAndUnicode(store: StoreKind) async throws {
        try await withApp(store) { client, database, token in
            // SQL metacharacters are just characters: stored and returned as sent.
            let sneaky = #"Robert'); DROP TABLE venue;-- "%_\ O'Reilly's"#
            let created = try await client.putVenue("v2", token: token, name: sneaky)
            #expect(created.status == .created)
            #expect(try decode(Venue.self, created).name == sneaky)
            try await client.execute(uri: "/api/v1/venues?q=%25", method: .get) { response throws in
                #expect(try decode(VenueList.self, response).venues.map(\.id) == ["v2"])  // % matched literally
            }
            #expect(try await database.count("venue") == 2)
            let registration = try await client.execute(
                uri: "/api/v1/devices", method: .post, headers: jsonHeaders,
                body: ByteBuffer(string: #"{"model": "x'; DELETE FROM device; --", "platform": "\" OR 1=1"}"#))
            #expect(registration.status == .created)
            #expect(try await database.count("device") == 2)
            // Control and invisible characters are refused; other Unicode is welcome.
            for name in ["tab\tinside", "nul\u{0}inside", "bell\u{7}", "escape\u{1B}[31m", "override \u{202E}"] {
                try expectJSONError(try await client.putVenue("v3", token: token, name: name), [.unprocessableContent], name)
            }
            #expect(try await client.putVenue("v3", token: token, name: "Bäckerei 🍞 مقهى 喫茶店").status == .created)
            let venue = try await client.execute(uri: "/api/v1/checkins", method: .post, headers: bearer(token), body: ByteBuffer(string: checkInJSON(venue: "v1' OR '1'='1")))
            try expectJSONError(venue, [.unprocessableContent], "SQL in venue_id")
        }
    }

    @Test(arguments: StoreKind.allCases) func idsThatTryToEscapeThePathAre4xx(store: StoreKind) async throws {
        try await withApp(store) { client, _, token in
            for path in ["..%2F..%2Fetc%2Fpasswd", "%2e%2e", "v1%00", "v1;DROP", "%F0%9F%8D%9E", String(repeating: "a", count: 5000)] {
                try await client.execute(uri: "/api/v1/venues/\(path)", method: .get) { response throws in
                    try expectJSONError(response, [.badRequest, .notFound], path)
                }
                try expectJSONError(try await client.putVenue(path, token: token), [.badRequest, .notFound], path)
            }
            try await client.execute(uri: "/api/v1/venues/../../etc/passwd", method: .get) { response throws in
                try expectJSONError(response, [.badRequest, .notFound], "literal ..")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func tenThousandQueryParametersAre400(store: StoreKind) async throws {
        try await withApp(store) { client, _, _ in
            let query = (0..<10_000).map { "p\($0)=\($0)" }.joined(separator: "&")
            try await client.execute(uri: "/api/v1/venues?\(query)", method: .get) { response throws in
                try expectJSONError(response, [.badRequest], "10 000 parameters")
            }
            try await client.execute(uri: "/api/v1/venues?raduis=5", method: .get) { response throws in
                #expect(try errorMessage(response).contains("unknown query parameter \"raduis\""))
            }
        }
    }

    /// Every API operation refuses a query parameter it does not take, as the venue search did from
    /// the start: `/api/v2/venues/ID/loudness?hour=20` answered every hour, as if the hour had been
    /// read. Refused before anything is stored: the same request without it then succeeds.
    @Test(arguments: StoreKind.allCases) func everyOperationRefusesQueryParametersItDoesNotTake(store: StoreKind) async throws {
        try await withApp(store) { client, _, token in
            let checkIn = makeCheckIn(venue: "v1", start: "2026-11-16T20:00:00Z", seconds: 120)
            let columns = makeCheckIn(venue: "v1", start: "2026-11-16T21:00:00Z", seconds: 120)
            let operations: [(HTTPRequest.Method, String, HTTPFields, ByteBuffer?, HTTPResponse.Status)] = [
                (.post, "/api/v1/devices", jsonHeaders, try json(DeviceRegistration(model: "m", platform: "linux")), .created),
                (.put, "/api/v1/venues/v2", bearer(token), try json(VenueUpsert(name: "Second", latitude: 0, longitude: 0, timezone: "UTC", kind: nil)), .created),
                (.post, "/api/v1/checkins", bearer(token), try json(checkIn), .created),
                (.post, "/api/v2/checkins", bearer(token), try json(CheckInV2(columns)), .created),
                (.get, "/api/v2/checkins/\(columns.id.wireString)", bearer(token), nil, .ok),
                (.get, "/api/v1/venues", [:], nil, .ok),
                (.get, "/api/v2/venues?near=0,0&at=friday-20", [:], nil, .ok),
                (.get, "/api/v1/venues/v1", [:], nil, .ok),
                (.get, "/api/v1/venues/v1/loudness", [:], nil, .ok),
                (.get, "/api/v2/venues/v1/loudness", [:], nil, .ok),
                (.get, "/api/v2/venues/v1/quiet-times", [:], nil, .ok),
                (.get, "/api/v1/scale", [:], nil, .ok),
                (.get, "/api/v1/openapi.yaml", [:], nil, .ok),
                (.get, "/api/v2/meter-design?rate=48000", [:], nil, .ok),
                (.get, "/api/v2/calibration?model=m", [:], nil, .ok),
                (.delete, "/api/v1/devices/me", bearer(token), nil, .noContent),
            ]
            for (method, uri, headers, body, status) in operations {
                let refused = uri + (uri.contains("?") ? "&" : "?") + "hour=20"
                try await client.execute(uri: refused, method: method, headers: headers, body: body) { response throws in
                    #expect(response.status == .badRequest, "\(method) \(refused)")
                    #expect(try errorMessage(response).contains("unknown query parameter \"hour\""), "\(method) \(refused)")
                }
                try await client.execute(uri: uri, method: method, headers: headers, body: body) { response throws in
                    #expect(response.status == status, "\(method) \(uri)")
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func wrongContentTypesAndEncodingsAre415(store: StoreKind) async throws {
        try await withApp(store) { client, _, token in
            for (type, encoding) in [("text/plain", nil), ("application/x-www-form-urlencoded", nil), (nil, nil), ("application/json", "br"), ("application/json", "deflate, gzip")] as [(String?, String?)] {
                var headers: HTTPFields = [.authorization: "Bearer \(token)"]
                if let type { headers[.contentType] = type }
                if let encoding { headers[.contentEncoding] = encoding }
                let response = try await client.execute(uri: "/api/v1/checkins", method: .post, headers: headers, body: ByteBuffer(string: checkInJSON()))
                try expectJSONError(response, [.unsupportedMediaType], "\(type ?? "no type") \(encoding ?? "")")
            }
        }
    }
}
