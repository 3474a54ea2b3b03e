import Logging
import PostgresNIO
import ServiceLifecycle

/// Relays what other servers commit: listens on `hearclear_venue` and tells this server's change
/// feed, so a cached answer is dropped as soon as the notification arrives. Notifications sent
/// while the connection is down are lost, so after every (re)connection it drops every cached answer.
/// Its connection is watched as a request's is (`withAvailableConnection`), so a listener whose
/// connection was lost mid-call starts again rather than waiting for ever.
struct ChangeListener: Service {
    let client: PostgresClient
    let changes: VenueChangeFeed
    let health: PostgresHealth
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await client.withAvailableConnection(health: health) { connection in
                        try await connection.listen(on: PostgresRepository.changeChannel) { notifications in
                            health.set(reachable: true)
                            changes.touchAll()
                            for try await notification in notifications {
                                switch VenueAnnouncement.venue(in: notification.payload, unlessFrom: changes.id) {
                                case VenueAnnouncement.everyVenue: changes.touchAll()
                                case let venue?: changes.touch(venue)
                                case nil: break  // this server's own, told to its caches at commit
                                }
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { return }
                    // Said once when PostgreSQL goes away, not at every attempt while it is away.
                    if health.isReachable { logger.warning("listening for other servers' changes stopped: \(String(reflecting: error)); listening again") }
                    health.set(reachable: false)
                }
                changes.touchAll()
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}
