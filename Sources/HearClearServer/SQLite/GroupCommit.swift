import GRDB
import Synchronization

/// Writes that arrive while another is being written share the next transaction, each in a
/// savepoint of its own: a failing write is rolled back alone, and the others commit together.
///
/// SQLite has one writer. With a transaction per check-in, each commit writes every page it touched
/// to the WAL again (the check-in table's last page, its indexes, the hour sums), so concurrent
/// uploads cost more than their own rows. GRDB serialises writes but does not group them, hence
/// this type. Each caller is answered only after the transaction it joined has committed.
final class GroupCommit: Sendable {
    private let writer: any DatabaseWriter
    /// At most `largestBatch` writes per transaction.
    private let waiting: WaitingLine<Job>

    /// Answers a caller once its transaction has ended: with its value if that transaction committed.
    private typealias Settlement = @Sendable (_ commit: Result<Void, any Error>) -> Void

    private struct Job: Sendable {
        /// Runs the write in its savepoint; never throws, its error is in the settlement.
        let run: @Sendable (Database) -> Settlement
        /// Answers a caller whose write never ran because the transaction could not begin.
        let fail: @Sendable (any Error) -> Void
    }

    /// Told how many writes each transaction committed.
    private let checkpointer: WALCheckpointer?

    init(writer: any DatabaseWriter, largestBatch: Int = 64, checkpointer: WALCheckpointer? = nil) {
        self.writer = writer
        waiting = WaitingLine(largestBatch: largestBatch)
        self.checkpointer = checkpointer
    }

    /// How many writes wait for the next transaction.
    var waitingCount: Int { waiting.count }

    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = Job(
                run: { db in
                    do {
                        var settle: Settlement = { _ in }
                        try db.inSavepoint {
                            let value = try work(db)
                            settle = { commit in continuation.resume(with: commit.map { value }) }
                            return .commit
                        }
                        return settle
                    } catch {
                        return { _ in continuation.resume(throwing: error) }
                    }
                },
                fail: { error in continuation.resume(throwing: error) })
            if waiting.append(job) { Task { await self.drain() } }
        }
    }

    /// Writes batches until none is waiting.
    private func drain() async {
        while let batch = waiting.nextBatch() {
            let settlements = Mutex<[Settlement]>([])
            do {
                try await writer.write { db in
                    for job in batch {
                        let settle = job.run(db)
                        settlements.withLock { $0.append(settle) }
                    }
                }
                for settle in settlements.withLock({ $0 }) { settle(.success(())) }
                checkpointer?.committed(batch.count)
            } catch {
                // Nothing of this transaction was kept: every caller hears why.
                let ran = settlements.withLock { $0 }
                for settle in ran { settle(.failure(error)) }
                for job in batch.dropFirst(ran.count) { job.fail(error) }
            }
        }
    }
}
