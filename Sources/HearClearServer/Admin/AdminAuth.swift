import Crypto
import Foundation
import Hummingbird

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

/// HTTP Basic authentication for `/admin` (user `admin`), a session cookie, and the CSRF token
/// tied to that session which every state-changing form must send back.
struct AdminAuthenticator: RouterMiddleware {
    typealias Context = APIRequestContext
    static let user = "admin"
    static let realm = "HearClear admin"
    static let sessionCookie = "hearclear_admin_session"

    let password: String
    /// Signs session ids into CSRF tokens; new at each start, so old forms stop working after a restart.
    let csrfKey: Data

    init(password: String) {
        self.password = password
        self.csrfKey = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard isAuthorized(request.headers[.authorization]) else {
            throw HTTPError(
                .unauthorized, headers: [.wwwAuthenticate: "Basic realm=\"\(Self.realm)\", charset=\"UTF-8\""],
                message: "the admin pages need the admin password")
        }
        var context = context
        let existing = request.cookies[Self.sessionCookie]?.value.filter { $0.isHexDigit }
        let session = existing.flatMap { $0.count == 64 ? $0 : nil } ?? Self.newSession()
        context.adminSession = AdminSession(id: session, csrfToken: csrfToken(for: session))
        var response = try await next(request, context)
        if existing != session {
            response.headers[values: .setCookie].append(
                "\(Self.sessionCookie)=\(session); Path=/admin; HttpOnly; SameSite=Strict")
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

    func csrfToken(for session: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(session.utf8), using: SymmetricKey(data: csrfKey)).map { String(format: "%02x", $0) }.joined()
    }

    static func newSession() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
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
