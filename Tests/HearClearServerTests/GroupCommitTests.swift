import Foundation
import GRDB
import Synchronization
import Testing

@testable import HearClearServer

/// Concurrent writes share a transaction, each in its own savepoint: what fails is rolled back
/// alone, and nobody is answered before the transaction they joined has ended.
struct GroupCommitTests {
    /// Counts the transactions that commit.
    final class Commits: TransactionObserver, Sendable {
        let count = Mutex(0)
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    struct Refused: Error, Equatable { let number: Int }

    /// A pool with a table of numbers, the `Commits` observer, and a group commit over it, in a
    /// new folder the caller removes.
    static func pool() throws -> (URL, DatabasePool, Commits, GroupCommit) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("group-commit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: folder.appendingPathComponent("group.sqlite").path)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE parent (id INTEGER PRIMARY KEY)")
            try db.execute(
                sql: "CREATE TABLE number (value INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)")
        }
        let commits = Commits()
        pool.add(transactionObserver: commits, extent: .databaseLifetime)
        return (folder, pool, commits, GroupCommit(writer: pool))
    }

    /// Holds the writer in a first write until `writes` more are waiting, then lets them all go; returns their results.
    static func heldThenReleased(
        _ commit: GroupCommit, writes: Int, _ work: @escaping @Sendable (Int, Database) throws -> Int
    ) async throws -> [Int: Result<Int, any Error>] {
        let gate = DispatchSemaphore(value: 0)
        let (entered, enter) = AsyncStream<Void>.makeStream()
        async let first: Void = commit.write { _ in
            enter.yield()
            gate.wait()
        }
        for await _ in entered { break }
        let results = try await withThrowingTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
            for number in 1...writes {
                group.addTask {
                    do { return (number, .success(try await commit.write { db in try work(number, db) })) } catch { return (number, .failure(error)) }
                }
            }
            // Each write waits behind the first: it is queued before the writer is let go.
            while commit.waitingCount < writes { await Task.yield() }
            gate.signal()
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        try await first
        return results
    }

    @Test func concurrentWritesShareOneTransactionAndAFailureIsRolledBackAlone() async throws {
        let (folder, pool, commits, commit) = try Self.pool()
        defer { try? FileManager.default.removeItem(at: folder) }
        let results = try await Self.heldThenReleased(commit, writes: 20) { number, db in
            try db.execute(sql: "INSERT INTO number (value) VALUES (?)", arguments: [number])
            if number % 7 == 0 { throw Refused(number: number) }
            return number * 10
        }
        // The first write's transaction, then one for the twenty.
        #expect(commits.count.withLock { $0 } == 2)
        for number in 1...20 {
            if number % 7 == 0 {
                #expect(throws: Refused(number: number)) { try results[number]?.get() }
            } else {
                #expect(try results[number]?.get() == number * 10)
            }
        }
        let stored = try await pool.read { db in try Int.fetchAll(db, sql: "SELECT value FROM number ORDER BY value") }
        #expect(stored == (1...20).filter { $0 % 7 != 0 })
    }

    @Test func aTransactionThatCannotCommitKeepsNothingAndTellsEveryWriter() async throws {
        let (folder, pool, _, commit) = try Self.pool()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Number 3 names a parent that does not exist: its savepoint is released, the commit refused.
        let results = try await Self.heldThenReleased(commit, writes: 5) { number, db in
            try db.execute(sql: "INSERT INTO number (value, parent) VALUES (?, ?)", arguments: [number, number == 3 ? 99 : nil])
            return number
        }
        for number in 1...5 {
            #expect(throws: DatabaseError.self) { try results[number]?.get() }
        }
        #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM number") } == 0)
        // And the next write goes on as if nothing happened.
        #expect(try await commit.write { db in try db.execute(sql: "INSERT INTO number (value) VALUES (6)"); return 6 } == 6)
    }

    @Test func aNewStoreFileHasPagesThatHoldSeveralCheckInsAndKeepsSavepointsInMemory() async throws {
        // A check-in of five minutes is a row of about 2.7 KB: with SQLite's default 4 KB pages each
        // filled one page alone (docs/storage.md). And a savepoint per check-in must not spill its
        // journal to a temporary file on every write.
        let database = try await TemporaryDatabase(.sqlite)
        #expect(try await database.int("PRAGMA page_size") == 32_768)
        #expect(try await database.int("PRAGMA temp_store") == 2)
        // The writer keeps the pages every upload reaches in memory as the file grows.
        #expect(try await database.int("PRAGMA cache_size") == -SQLiteDatabase.writerCacheKiB)
    }
}
