import Foundation
import HearClearCore
import Synchronization

/// Uploads that arrive while a group is being stored are stored together as the next group: one
/// transaction, and one statement per table for all of them (`PostgresRepository.storeCheckIns`).
///
/// Stored one by one, every upload cost seven round trips, each bound, planned from its cached plan
/// and executed by PostgreSQL, and decoded again by the server: about as much CPU as the server's
/// own work on the upload, on the same cores (docs/profiling.md, "Ingest"). A group costs the same
/// round trips whatever its size. One group is stored at a time: two at once, each smaller, took
/// fewer uploads a second in the ingest case. If a group fails, nothing of it was kept and each of
/// its uploads is stored again alone, so that only the one at fault hears its error (unless the
/// database could not be reached: then every one of them hears that).
final class PostgresGroupCommit: Sendable {
    /// One upload waiting for its group.
    struct Upload: Sendable {
        var checkIn: CheckIn
        var contentHash: Data
        var device: UUID
        var receivedAt: Date
        /// Analysed before it joined a group, for its venue's time zone and its calibration as they
        /// were then (nil: its venue was not found); the group checks that it still applies.
        var prepared: PreparedCheckIn?
    }

    typealias Store = @Sendable ([Upload]) async throws -> [CheckInOutcome]

    private struct Waiting: Sendable {
        let upload: Upload
        let continuation: CheckedContinuation<CheckInOutcome, any Error>
    }

    /// At most `largestGroup` uploads a group.
    private let waiting: WaitingLine<Waiting>
    /// Each venue's time zone as a group last locked it (or a read before one saw it), by the id
    /// uploads name the venue by: an upload is analysed for it before it joins a group, and one
    /// whose venue it holds needs no read first. At most `largestCache` venues.
    private let timezones = Mutex<[String: String]>([:])
    private static let largestCache = 100_000

    init(largestGroup: Int = 64) {
        waiting = WaitingLine(largestBatch: largestGroup)
    }

    /// How many uploads wait for the next group.
    var waitingCount: Int { waiting.count }

    /// The time zone `venueID` had when a group last locked it or a read last saw it.
    func timezone(of venueID: String) -> String? {
        timezones.withLock { $0[venueID] }
    }

    /// Records venues' time zones as a group or a read saw them, by the ids uploads named them by.
    func learn(_ seen: [String: String]) {
        timezones.withLock { timezones in
            if timezones.count + seen.count > Self.largestCache { timezones.removeAll() }
            timezones.merge(seen) { _, new in new }
        }
    }

    /// Stores `upload` with the next group; `store` stores a group (the first waiting caller's runs it).
    func store(_ upload: Upload, with store: @escaping Store) async throws -> CheckInOutcome {
        try await withCheckedThrowingContinuation { continuation in
            if waiting.append(Waiting(upload: upload, continuation: continuation)) { Task { await self.drain(store) } }
        }
    }

    /// Stores groups until none waits.
    private func drain(_ store: Store) async {
        while let group = waiting.nextBatch() {
            do {
                let outcomes = try await store(group.map(\.upload))
                for (waiting, outcome) in zip(group, outcomes) { waiting.continuation.resume(returning: outcome) }
            } catch {
                // Unreachable, the database fails every upload alike: each hears it at once rather
                // than after one more try of its own.
                guard group.count > 1, !(error is StoreUnavailable) else {
                    for waiting in group { waiting.continuation.resume(throwing: error) }
                    continue
                }
                for waiting in group {
                    do {
                        waiting.continuation.resume(returning: try await store([waiting.upload])[0])
                    } catch {
                        waiting.continuation.resume(throwing: error)
                    }
                }
            }
        }
    }
}
