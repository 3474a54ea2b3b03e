import Foundation
import HearClearCore
import Logging
import ServiceLifecycle

/// Drops raw samples older than `retention_days`, at start and then once a day, while the server
/// runs (`hearclear-server prune` does the same once, for cron).
struct RetentionService: Service {
    let repository: any Repository
    let days: Int
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let pruned = try await repository.pruneSamples(startedBefore: Self.cutoff(days: days, now: Date()), at: Date())
            if pruned > 0 { logger.notice("Retention: dropped the samples of \(pruned.counted("check-in")) older than \(days) days") }
            // Ends at once on shutdown instead of after a day.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(86_400)) }
        }
    }

    static func cutoff(days: Int, now: Date) -> Date {
        now.addingTimeInterval(-Double(days) * 86_400)
    }
}
