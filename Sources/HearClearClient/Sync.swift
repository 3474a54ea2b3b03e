import Foundation
import HearClearCore

/// Sends the check-ins waiting in the outbox, oldest first: what the server accepted leaves it,
/// what it refused for good moves aside, everything else waits for the next sync. One sync runs
/// at a time (a lock in the data folder), so a cron job and a person never send the same files.
public struct Sync: Sendable {
    /// How hard to try before leaving check-ins waiting.
    public struct Patience: Sendable {
        /// Attempts per check-in on a network error or a server error (5xx), backing off.
        public var attempts: Int
        /// The longest the server may ask to wait (429, 408, 503 with `Retry-After`), in all.
        public var maximumWait: Double
        public var firstBackoff: Duration

        public init(attempts: Int, maximumWait: Double, firstBackoff: Duration = .milliseconds(500)) {
            self.attempts = attempts
            self.maximumWait = maximumWait
            self.firstBackoff = firstBackoff
        }

        /// `hearclear sync`: a few retries, and waits as long as the server asks for up to 15 minutes,
        /// so a backlog many times the rate limit goes up in one run.
        public static let sync = Patience(attempts: 3, maximumWait: 15 * 60)
        /// The end of `hearclear checkin`: one try, no waiting, whatever the backlog.
        public static let once = Patience(attempts: 1, maximumWait: 0)
    }

    public struct Result: Sendable {
        public var uploaded: [CheckInReceipt] = []
        /// The uploaded check-ins the server had before (`APIClient.Upload.storedBefore`).
        public var storedBefore: Set<UUID> = []
        public var rejected: [(id: UUID, failure: APIClient.Failure)] = []
        public var waiting: [(id: UUID, reason: String)] = []
        /// Another sync held the lock: it sends the check-ins.
        public var anotherSyncRunning = false
    }

    public let outbox: Outbox
    public let client: APIClient

    public init(outbox: Outbox, client: APIClient) {
        self.outbox = outbox
        self.client = client
    }

    /// Sends the waiting check-ins (only `only`, when given). `onWait` hears each pause the server
    /// asked for: seconds, check-ins uploaded so far, check-ins in all. Not `exclusive`, it sends
    /// even while a sync runs (a check-in just sealed, which that sync did not list).
    public func run(
        _ patience: Patience = .sync, only: Set<UUID>? = nil, exclusive: Bool = true, onWait: (Double, Int, Int) -> Void = { _, _, _ in }
    ) async throws -> Result {
        let lock = try outbox.lockForSync()
        if exclusive && lock == nil { return Result(anotherSyncRunning: true) }
        defer { lock?.release() }
        try outbox.recoverInterruptedRecordings()
        var result = Result()
        var waited = 0.0
        let pending = try outbox.pending().filter { only?.contains($0.id) ?? true }
        var stopped: String?
        for checkIn in pending {
            let file = checkIn.file
            if let stopped {
                result.waiting.append((checkIn.id, stopped))
                continue
            }
            var backoff = patience.firstBackoff
            var attempt = 1
            while true {
                do {
                    let upload = try await client.upload(checkIn)
                    try outbox.remove(file)
                    result.uploaded.append(upload.receipt)
                    if upload.storedBefore { result.storedBefore.insert(upload.receipt.id) }
                } catch let failure as APIClient.Failure {
                    if let seconds = failure.retryAfter, waited + seconds <= patience.maximumWait {
                        onWait(seconds, result.uploaded.count, pending.count)
                        try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                        waited += seconds
                        continue
                    }
                    if failure.isTransient && attempt < patience.attempts {
                        try await Task.sleep(for: backoff)
                        backoff *= 2
                        attempt += 1
                        continue
                    }
                    if failure.rejectsCheckIn {
                        try outbox.moveAside(file, reason: failure.description)
                        result.rejected.append((checkIn.id, failure))
                    } else {
                        result.waiting.append((checkIn.id, failure.description))
                        // A server error may be this check-in's alone; anything else would fail the rest the same way.
                        if !failure.isServerError { stopped = failure.description }
                    }
                }
                break
            }
        }
        return result
    }
}
