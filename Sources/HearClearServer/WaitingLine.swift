import Synchronization

/// Work that waits for one drainer, who takes it in batches: how both stores' group commits
/// (`GroupCommit`, `PostgresGroupCommit`) queue what arrives while they write.
final class WaitingLine<Item: Sendable>: Sendable {
    /// At most this many items a batch, so that nothing waits behind an unbounded one.
    private let largestBatch: Int
    private let state = Mutex<(items: [Item], draining: Bool)>(([], false))

    init(largestBatch: Int) {
        self.largestBatch = largestBatch
    }

    /// How many items wait for the next batch.
    var count: Int { state.withLock { $0.items.count } }

    /// Adds `item`; true when no drainer runs, and the caller must start one.
    func append(_ item: Item) -> Bool {
        state.withLock { state in
            state.items.append(item)
            defer { state.draining = true }
            return !state.draining
        }
    }

    /// The next batch, oldest first; nil once none waits, and the drainer stops.
    func nextBatch() -> [Item]? {
        state.withLock { state in
            guard !state.items.isEmpty else {
                state.draining = false
                return nil
            }
            let batch = Array(state.items.prefix(largestBatch))
            state.items.removeFirst(batch.count)
            return batch
        }
    }
}
