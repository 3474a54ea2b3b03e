import Logging
import PostgresNIO
import ServiceLifecycle

/// Relays what other servers commit: listens on `hearclear_venue` and tells this server's change
/// feed, so a cached answer is dropped as soon as the notification arrives. Notifications sent
/// while the connection is down are lost, so after every (re)connection it drops every cached answer.
struct ChangeListener: Service {
    let client: PostgresClient
    let changes: VenueChangeFeed
    let health: PostgresHealth
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: PostgresRepository.changeChannel) { notifications in
                            health.set(reachable: true)
                            changes.touchAll()
                            for try await notification in notifications {
                                if notification.payload == "*" { changes.touchAll() } else { changes.touch(notification.payload) }
                            }
                        }
                    }
                } catch {
                    health.set(reachable: false)
                    if Task.isCancelled { return }
                    logger.warning("listening for other servers' changes stopped: \(error); listening again")
                }
                changes.touchAll()
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}
