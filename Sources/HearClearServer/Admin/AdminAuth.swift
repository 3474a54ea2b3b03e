import Crypto
import Foundation
import Hummingbird
import Synchronization

/// Compares secrets in time that does not depend on where they differ, or on their lengths:
/// both sides are hashed first, and the digests are compared byte by byte without stopping early.
enum ConstantTime {
    static func equals(_ a: some DataProtocol, _ b: some DataProtocol) -> Bool {
        let left = SHA256.hash(data: a), right = SHA256.hash(data: b)
        var difference: UInt8 = 0
        for (x, y) in zip(left, right) { difference |= x ^ y }
        return difference == 0
    }
}

/// HTTP Basic authentication for `/admin` (user `admin`), throttled against guessing; a session
/// the server issues (never one a client names), which expires and which logging out ends; and the
/// CSRF token tied to that session which every state-changing form must send back.
struct AdminAuthenticator: RouterMiddleware {
    typealias Context = APIRequestContext
    static let user = "admin"
    static let realm = "HearClear admin"
    static let sessionCookie = "hearclear_admin_session"
    /// A session is replaced by a new one this long after it was issued.
    static let sessionLifetime: TimeInterval = 8 * 3600
    /// Wrong passwords a minute from one address, and from all addresses together, before those
    /// that have been failing are refused without their password being checked.
    static let failuresPerAddress = 10
    static let failuresPerAccount = 30

    let password: String
    /// Signs session ids and derives CSRF tokens; new at each start, so sessions and forms of an
    /// earlier run stop working.
    let key: Data
    /// Failed passwords, in the buckets of the write limits: on PostgreSQL the deployment's
    /// servers share them, so guessing across servers is counted once.
    let failures: any RateBuckets
    let trustedProxies: Set<String>
    /// Sessions logged out of, until they would have expired.
    let ended = EndedSessions()
    let now: @Sendable () -> Date

    init(password: String, failures: any RateBuckets, trustedProxies: Set<String>, now: @escaping @Sendable () -> Date = { Date() }) {
        self.password = password
        self.key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        self.failures = failures
        self.trustedProxies = trustedProxies
        self.now = now
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let address = ClientAddress.of(request, peer: context.remoteAddress, trustedProxies: trustedProxies) ?? "unknown"
        let addressKey = "admin-failures:address:\(address)", accountKey = "admin-failures:account:\(Self.user)"
        // An address with recent failures is refused unchecked once its own failures, or the
        // account's, are used up: guessing stops there, while the right password from an address
        // that has not been failing still gets in.
        let addressLeft = try await failures.available(addressKey, perMinute: Self.failuresPerAddress)
        if addressLeft < Double(Self.failuresPerAddress) {
            let accountLeft = try await failures.available(accountKey, perMinute: Self.failuresPerAccount)
            if addressLeft < 1 || accountLeft < 1 {
                let wait = addressLeft < 1
                    ? TokenBucket.wait(for: addressLeft, perMinute: Self.failuresPerAddress) : TokenBucket.wait(for: accountLeft, perMinute: Self.failuresPerAccount)
                ServerMetrics.adminLoginsThrottled.increment()
                throw RateLimiter.tooManyRequests(retryAfter: wait, who: "address after wrong admin passwords")
            }
        }
        let authorization = request.headers[.authorization]
        guard isAuthorized(authorization) else {
            // A browser asks without credentials first, to be told which it needs: not a failure.
            if authorization != nil {
                _ = try await failures.take(addressKey, perMinute: Self.failuresPerAddress)
                _ = try await failures.take(accountKey, perMinute: Self.failuresPerAccount)
                ServerMetrics.adminLoginFailures.increment()
                context.logger.warning("wrong admin password", metadata: ["address": "\(address)"])
            }
            throw HTTPError(
                .unauthorized, headers: [.wwwAuthenticate: "Basic realm=\"\(Self.realm)\", charset=\"UTF-8\""],
                message: "the admin pages need the admin password")
        }
        var context = context
        let presented = request.cookies[Self.sessionCookie]?.value
        let session = presented.flatMap(validSession) ?? newSession()
        context.adminSession = AdminSession(id: session, csrfToken: csrfToken(for: session))
        var response = try await next(request, context)
        if presented != session && response.headers[.setCookie] == nil {
            let secure = context.overHTTPS ? "; Secure" : ""
            response.headers[values: .setCookie].append(
                "\(Self.sessionCookie)=\(session); Path=/admin; Max-Age=\(Int(Self.sessionLifetime)); HttpOnly; SameSite=Strict\(secure)")
        }
        return response
    }

    private func isAuthorized(_ header: String?) -> Bool {
        guard let header, header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let credentials = String(data: decoded, encoding: .utf8),
            let colon = credentials.firstIndex(of: ":")
        else { return false }
        let userMatches = ConstantTime.equals(Data(credentials[..<colon].utf8), Data(Self.user.utf8))
        let passwordMatches = ConstantTime.equals(Data(credentials[credentials.index(after: colon)...].utf8), Data(password.utf8))
        return userMatches && passwordMatches
    }

    /// A session id: when it expires, 128 random bits, and this server's signature of both, so a
    /// client cannot choose one (session fixation) or stretch its life.
    func newSession() -> String {
        var generator = SystemRandomNumberGenerator()
        let random = hex((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        let body = "\(Int(now().timeIntervalSince1970 + Self.sessionLifetime)).\(random)"
        return "\(body).\(hex(HMAC<SHA256>.authenticationCode(for: Data("session:\(body)".utf8), using: SymmetricKey(data: key))))"
    }

    /// The session when it is one this server issued, unexpired and not logged out of.
    func validSession(_ text: String) -> String? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let expiry = TimeInterval(parts[0]), expiry > now().timeIntervalSince1970 else { return nil }
        let expected = hex(HMAC<SHA256>.authenticationCode(for: Data("session:\(parts[0]).\(parts[1])".utf8), using: SymmetricKey(data: key)))
        guard ConstantTime.equals(Data(parts[2].utf8), Data(expected.utf8)), !ended.contains(text, now: now()) else { return nil }
        return text
    }

    /// Ends a session: it is refused from now on, and the browser is told to forget the cookie.
    func endSession(_ session: String) -> String {
        let expiry = session.split(separator: ".").first.flatMap { TimeInterval($0) } ?? now().timeIntervalSince1970
        ended.insert(session, until: Date(timeIntervalSince1970: expiry), now: now())
        return "\(Self.sessionCookie)=; Path=/admin; Max-Age=0; HttpOnly; SameSite=Strict"
    }

    func csrfToken(for session: String) -> String {
        hex(HMAC<SHA256>.authenticationCode(for: Data("csrf:\(session)".utf8), using: SymmetricKey(data: key)))
    }

    private func hex(_ code: some Sequence<UInt8>) -> String {
        code.map { String(format: "%02x", $0) }.joined()
    }
}

/// Sessions logged out of, each kept until it would have expired anyway.
final class EndedSessions: Sendable {
    private let sessions = Mutex<[String: Date]>([:])

    func insert(_ session: String, until expiry: Date, now: Date) {
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value > now }
            sessions[session] = expiry
        }
    }

    func contains(_ session: String, now: Date) -> Bool {
        sessions.withLock { sessions in sessions[session].map { $0 > now } ?? false }
    }
}

/// The admin's session: its id (in a cookie) and the CSRF token forms carry.
struct AdminSession: Sendable {
    let id: String
    let csrfToken: String

    /// Refuses (403) a form whose token is missing or is not this session's.
    func check(_ form: [String: String]) throws {
        guard let token = form["csrf"], ConstantTime.equals(Data(token.utf8), Data(csrfToken.utf8)) else {
            throw HTTPError(.forbidden, message: "the form's CSRF token is missing or stale: reload the page and try again")
        }
    }
}
