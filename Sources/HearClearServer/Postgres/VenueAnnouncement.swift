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
    private let logger: Logger
    private let announced = Mutex<Set<String>>([])

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// These venues' answers change when the transaction commits.
    func venues(_ ids: some Sequence<String>) async throws {
        let new = announced.withLock { announced in
            let new = Set(ids).subtracting(announced)
            announced.formUnion(new)
            return new
        }
        guard !new.isEmpty else { return }
        try await connection.query(
            "SELECT pg_notify(\(PostgresRepository.changeChannel), venue) FROM unnest(\(Array(new))) AS venue", logger: logger)
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
