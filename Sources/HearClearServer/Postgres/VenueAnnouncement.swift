import Logging
import PostgresNIO
import Synchronization

/// What a write transaction tells every server's answer caches. The other servers hear it through
/// `NOTIFY`, sent inside the transaction: PostgreSQL delivers it at commit and drops it on
/// rollback, so no server can die between a commit and its announcement. This server's own
/// caches are told once the transaction has committed (`PostgresRepository.transaction(announcing:)`).
final class VenueAnnouncement: Sendable {
    /// What "every venue" is on the channel.
    static let everyVenue = "*"

    private let connection: PostgresConnection
    private let origin: String
    private let logger: Logger
    private let announced = Mutex<Set<String>>([])

    /// `origin`: the id of the change feed this server's caches follow.
    init(connection: PostgresConnection, origin: String, logger: Logger) {
        self.connection = connection
        self.origin = origin
        self.logger = logger
    }

    /// A notification's payload: who sends it, and which venue (or `*`).
    static func payload(origin: String, venue: String) -> String { "\(origin) \(venue)" }

    /// The venue a payload names, unless `origin` sent it.
    static func venue(in payload: String, unlessFrom origin: String) -> String? {
        let parts = payload.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0] != origin else { return nil }
        return parts[1]
    }

    /// These venues' answers change when the transaction commits.
    func venues(_ ids: some Sequence<String>) async throws {
        let new = announced.withLock { announced in
            let new = Set(ids).subtracting(announced)
            announced.formUnion(new)
            return new
        }
        guard !new.isEmpty else { return }
        let payloads = new.map { Self.payload(origin: origin, venue: $0) }
        for try await _ in try await connection.execute(
            PostgresRepository.Statement.Notify(channel: PostgresRepository.changeChannel, payloads: payloads), logger: logger)
        {}
    }

    /// The payload that announces `venue` from within a statement of the transaction (one round
    /// trip fewer than `venues`); `sent` records it once that statement ran.
    func payload(for venue: String) -> String { Self.payload(origin: origin, venue: venue) }

    /// A statement of the transaction announced these venues with `payload(for:)`.
    func sent(_ ids: some Sequence<String>) {
        announced.withLock { $0.formUnion(ids) }
    }

    /// Every venue's answers may change (a rebuild, a copy into the database).
    func everyVenue() async throws {
        try await venues([Self.everyVenue])
    }

    /// Tells this server's caches what was announced.
    func tell(_ changes: VenueChangeFeed) {
        for venue in announced.withLock({ $0 }) {
            if venue == Self.everyVenue { changes.touchAll() } else { changes.touch(venue) }
        }
    }
}
