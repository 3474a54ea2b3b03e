import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

/// Copies the WAL back into the database file on a connection of its own, so that the one writer
/// does not wait for it.
///
/// SQLite checkpoints in the connection that commits: every 1,000 frames the writer copied the WAL
/// into the file and `fsync`ed it, and every upload of the next batches waited. On the growth
/// case's store at 10⁵ check-ins its syncs took 1.5 s of every 3,200 uploads, three times as long
/// as on an empty store, as each upload dirtied more distinct pages of a larger file
/// (docs/profiling.md, "Ingest", step 15). Here a passive checkpoint runs every `every` committed
/// check-ins on a dispatch thread (its `fsync` would block a thread of Swift's cooperative pool).
/// The writer's own checkpoint stays: it then finds most frames copied, and its completing lets
/// the WAL start over, which a checkpoint running beside a writer that never pauses never does.
final class WALCheckpointer: Sendable {
    /// Committed check-ins between two checkpoints: a few hundred frames on a busy store.
    static let every = 32

    private let path: String
    private let every: Int
    private let state = Mutex<(committed: Int, running: Bool)>((0, false))
    private let queue = DispatchQueue(label: "hearclear.wal-checkpoint")
    /// Opened at the first checkpoint and kept until `close`: opening one for each checkpoint
    /// (fifty a second under the ingest case) cost about 4 % of the rate (docs/profiling.md, step 20).
    private let connection = Mutex<(queue: DatabaseQueue?, closed: Bool)>((nil, false))

    init(path: String, every: Int = WALCheckpointer.every) {
        self.path = path
        self.every = every
    }

    /// Counts `writes` just committed; starts a checkpoint when enough have been and none is running.
    func committed(_ writes: Int) {
        let start = state.withLock { state in
            state.committed += writes
            guard state.committed >= every, !state.running else { return false }
            state = (0, true)
            return true
        }
        guard start else { return }
        queue.async { [self] in
            defer { state.withLock { $0.running = false } }
            guard let connection = opened() else { return }
            try? connection.writeWithoutTransaction { db in
                _ = try db.checkpoint(.passive)
                Self.flush(db)
            }
        }
    }

    /// Writes the pages a checkpoint copied through to the disk. SQLite syncs the file only after a
    /// checkpoint that copies the whole WAL, and that is the writer's: with the pages this thread
    /// copied still dirty, that sync took 1.7 s of every 3,200 uploads at 10⁶ stored check-ins,
    /// on the writer (docs/profiling.md, step 18). Through SQLite's own file handle: closing another
    /// descriptor of the file would drop the locks SQLite holds on it. A failed flush loses
    /// nothing; the writer's checkpoint syncs again.
    private static func flush(_ db: Database) {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
            let file, let sync = file.pointee.pMethods?.pointee.xSync
        else { return }
        _ = sync(file, SQLITE_SYNC_NORMAL)
    }

    /// The checkpoints' connection; none once closed. One that fails to open is tried again at the
    /// next checkpoint: a checkpoint missed loses nothing, the writer's own copies what it did not.
    private func opened() -> DatabaseQueue? {
        connection.withLock { connection in
            if connection.queue == nil, !connection.closed { connection.queue = try? DatabaseQueue(path: path) }
            return connection.queue
        }
    }

    /// Returns once the checkpoint under way, if any, has ended.
    func finish() {
        queue.sync {}
    }

    /// Waits for the checkpoint under way and closes the connection, before the store closes.
    func close() {
        queue.sync {
            connection.withLock { connection in
                try? connection.queue?.close()
                connection = (nil, true)
            }
        }
    }
}
