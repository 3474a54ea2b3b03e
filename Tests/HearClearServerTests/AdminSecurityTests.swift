import Foundation
import HearClearCore
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestCluster
import Testing

@testable import HearClearServer

/// The admin pages against the security review's findings: guessing throttled, sessions the
/// server's own that expire and end, forms from other sites refused, cookies `Secure` behind TLS.
@Suite struct AdminSecurityTests {
    static let wrong = "Basic " + Data("admin:not the password".utf8).base64EncodedString()

    /// The router on a real socket (the peer is 127.0.0.1, trusted as a proxy, so `X-Forwarded-For`
    /// names each request's client address). The failure buckets' time stands still, on either
    /// store: a loaded machine took 12 s to send twelve guesses, and the buckets, rightly, gave
    /// back the tokens of the seconds that passed.
    func withLiveAdmin(_ store: StoreKind, _ test: @Sendable (any TestClientProtocol, TemporaryDatabase) async throws -> Void) async throws {
        let database = try await TemporaryDatabase(store)
        let settings = ServerSettings(adminPassword: AdminTests.password, trustedProxies: ["127.0.0.1"])
        let opened = database.opened, moment = ContinuousClock.now, date = Date()
        let buckets: any RateBuckets = (opened.rateBuckets as? PostgresRateBuckets)?.frozen(at: date) ?? LocalRateBuckets(now: { moment })
        let frozen = OpenedStore(
            store: opened.store, schemaVersion: opened.schemaVersion, changes: opened.changes, rateBuckets: buckets, isReachable: opened.isReachable,
            services: opened.services, close: opened.close)
        let app = Application(router: try await buildRouter(store: frozen, settings: settings, logger: quietLogger), logger: quietLogger)
        try await app.test(.live) { client in try await test(client, database) }
    }

    func admin(_ client: some TestClientProtocol, from address: String, authorization: String = AdminTests.authorization, extra: HTTPFields = [:])
        async throws -> TestResponse
    {
        var headers: HTTPFields = [.authorization: authorization, .init("X-Forwarded-For")!: address]
        headers.append(contentsOf: extra)
        return try await client.execute(uri: "/admin/scale", method: .get, headers: headers)
    }

    /// A page opened from `address` as a browser would: the session cookie it sets, the CSRF token
    /// of its forms, its HTML, and the headers a form posted back from there carries.
    func session(_ client: some TestClientProtocol, from address: String) async throws -> (html: String, csrf: String, form: HTTPFields) {
        let page = try await admin(client, from: address)
        let cookie = try #require(page.headers[.setCookie]?.split(separator: ";").first.map(String.init))
        let html = String(buffer: page.body)
        let csrf = try #require(html.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/)?.1)
        let form: HTTPFields = [
            .authorization: AdminTests.authorization, .contentType: "application/x-www-form-urlencoded", .cookie: cookie,
            .init("X-Forwarded-For")!: address,
        ]
        return (html, String(csrf), form)
    }

    @Test(arguments: StoreKind.allCases) func guessingIsThrottledAndTheRightPasswordFromElsewhereStillGetsIn(store: StoreKind) async throws {
        try await withLiveAdmin(store) { client, _ in
            // The review's 300 guesses in 0.2 s: after 10, the guessing address is refused unchecked.
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<12 { statuses.append(try await admin(client, from: "203.0.113.1", authorization: Self.wrong).status) }
            #expect(statuses.prefix(10).allSatisfy { $0 == .unauthorized } && statuses.suffix(2).allSatisfy { $0 == .tooManyRequests }, "\(statuses)")
            let right = try await admin(client, from: "203.0.113.1")
            #expect(right.status == .tooManyRequests && right.headers[.retryAfter] != nil)
            #expect(try await admin(client, from: "203.0.113.2").status == .ok)
            // Spread over many addresses, the account's 30 failures a minute run out too: the
            // addresses that failed are refused, one that did not still gets in with the password.
            for index in 0..<25 { _ = try await admin(client, from: "198.51.100.\(index)", authorization: Self.wrong) }
            #expect(try await admin(client, from: "198.51.100.0", authorization: Self.wrong).status == .tooManyRequests)
            #expect(try await admin(client, from: "198.51.100.1").status == .tooManyRequests)
            #expect(try await admin(client, from: "192.0.2.7").status == .ok)
            // Asking without credentials, as a browser does first, is no failure.
            for _ in 0..<20 {
                let challenge = try await client.execute(uri: "/admin", method: .get, headers: [.init("X-Forwarded-For")!: "192.0.2.8"])
                #expect(challenge.status == .unauthorized)
            }
            #expect(try await admin(client, from: "192.0.2.8").status == .ok)
        }
    }

    @Test func aPasswordOfSpacesIsNoPassword() throws {
        for (password, accepted) in [("        ", false), (" a b c d e f g ", false), ("\t\t\t\t\t\t\t\t\t", false), ("a b c d e f g h", true), ("correct horse", true)] {
            #expect((ServerSettings.adminPasswordProblem(password) == nil) == accepted, "\(password.debugDescription)")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("password-\(UUID().uuidString).json")
            try Data(#"{"admin_password": "\#(password.replacingOccurrences(of: "\t", with: "\\t"))"}"#.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let loaded = Result { try ServerSettings.load(contentsOf: file.path) }
            #expect(((try? loaded.get()) != nil) == accepted, "\(password.debugDescription)")
        }
    }

    @Test(arguments: StoreKind.allCases) func aSessionIdChosenByTheClientIsReplacedByTheServers(store: StoreKind) async throws {
        try await withLiveAdmin(store) { client, _ in
            let chosen = String(repeating: "ab", count: 32)
            let response = try await admin(client, from: "192.0.2.1", extra: [.cookie: "\(AdminAuthenticator.sessionCookie)=\(chosen)"])
            let cookie = try #require(response.headers[.setCookie])
            #expect(!cookie.contains(chosen) && cookie.contains("HttpOnly") && cookie.contains("Max-Age=28800"))
            // The session it was given is kept: no new cookie.
            let issued = String(cookie.prefix { $0 != ";" })
            #expect(try await admin(client, from: "192.0.2.1", extra: [.cookie: issued]).headers[.setCookie] == nil)
        }
    }

    @Test func aSessionExpiresAndCannotBeStretched() throws {
        let clock = Clock()
        let authenticator = AdminAuthenticator(password: AdminTests.password, failures: LocalRateBuckets(), trustedProxies: [], now: { clock.now })
        let session = authenticator.newSession()
        #expect(authenticator.validSession(session) == session)
        clock.now += AdminAuthenticator.sessionLifetime - 1
        #expect(authenticator.validSession(session) == session)
        clock.now += 2
        #expect(authenticator.validSession(session) == nil)
        // A later expiry written into it breaks its signature.
        let parts = session.split(separator: ".")
        let stretched = "\(Int(clock.now.timeIntervalSince1970) + 3600).\(parts[1]).\(parts[2])"
        #expect(authenticator.validSession(stretched) == nil)
        #expect(authenticator.validSession("garbage") == nil && authenticator.validSession("1.2") == nil && authenticator.validSession("") == nil)
    }

    final class Clock: @unchecked Sendable {
        var now = Date(timeIntervalSince1970: 1_800_000_000)
    }

    @Test(arguments: StoreKind.allCases) func signingOutEndsTheSessionAndAsksForThePasswordAgain(store: StoreKind) async throws {
        try await withLiveAdmin(store) { client, database in
            _ = try await client.registerDevice()
            let device = try #require(try await database.string("SELECT id FROM device"))
            let (html, csrf, form) = try await session(client, from: "192.0.2.1")
            #expect(html.contains(#"<form class="logout" method="post" action="/admin/logout">"#))
            let out = try await client.execute(uri: "/admin/logout", method: .post, headers: form, body: ByteBuffer(string: "csrf=\(csrf)"))
            #expect(out.status == .unauthorized)
            #expect(out.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(String(buffer: out.body).contains("You are signed out"))
            // The ended session's form no longer works, even with the password.
            let after = try await client.execute(uri: "/admin/devices/\(device)/ban", method: .post, headers: form, body: ByteBuffer(string: "banned=1&csrf=\(csrf)"))
            #expect(after.status == .forbidden)
            #expect(try await database.int("SELECT COUNT(*) FROM device WHERE banned") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func aFormFromAnotherSiteIsRefusedEvenWithItsToken(store: StoreKind) async throws {
        try await withLiveAdmin(store) { client, database in
            _ = try await client.registerDevice()
            let device = try #require(try await database.string("SELECT id FROM device"))
            let (_, csrf, form) = try await session(client, from: "192.0.2.1")
            func ban(origin: String?) async throws -> HTTPResponse.Status {
                var headers = form
                if let origin { headers[.origin] = origin }
                return try await client.execute(uri: "/admin/devices/\(device)/ban", method: .post, headers: headers, body: ByteBuffer(string: "banned=1&csrf=\(csrf)")).status
            }
            for origin in ["https://evil.example", "null", "http://localhost.evil.example", "http://localhost:1"] {
                #expect(try await ban(origin: origin) == .forbidden, "\(origin)")
            }
            #expect(try await database.int("SELECT COUNT(*) FROM device WHERE banned") == 0)
            #expect(try await ban(origin: "http://localhost") == .seeOther)
            #expect(try await database.int("SELECT COUNT(*) FROM device WHERE banned") == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func behindATrustedTLSProxyTheCookieIsSecureAndAnswersCarryHSTS(store: StoreKind) async throws {
        try await withLiveAdmin(store) { client, _ in
            let https = try await admin(client, from: "192.0.2.1", extra: [.init("X-Forwarded-Proto")!: "https"])
            #expect(https.headers[.setCookie]?.contains("; Secure") == true)
            #expect(https.headers[.init("Strict-Transport-Security")!] == "max-age=31536000")
            let plain = try await admin(client, from: "192.0.2.1")
            #expect(plain.headers[.setCookie]?.contains("Secure") == false)
            #expect(plain.headers[.init("Strict-Transport-Security")!] == nil)
        }
        // From a peer that is no trusted proxy, the header is the client's word: ignored.
        try await withApp(settings: ServerSettings(adminPassword: AdminTests.password)) { client, _ in
            let response = try await client.execute(
                uri: "/admin/scale", method: .get, headers: [.authorization: AdminTests.authorization, .init("X-Forwarded-Proto")!: "https"])
            #expect(response.status == .ok && response.headers[.setCookie]?.contains("Secure") == false)
            #expect(response.headers[.init("Strict-Transport-Security")!] == nil)
        }
    }
}
