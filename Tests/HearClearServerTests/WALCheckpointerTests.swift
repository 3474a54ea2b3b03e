import Foundation
import GRDB
import Testing

@testable import HearClearServer

/// The WAL is copied into the database file beside the writer once enough writes have committed.
struct WALCheckpointerTests {
    static func fileSize(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("checkpointer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A store whose writer copies nothing into the file itself, so that whatever reaches the file
    /// was copied beside it, with an empty table `blob`.
    static func storeWithoutItsOwnCheckpoints(in folder: URL) throws -> (path: String, pool: DatabasePool) {
        let path = folder.appendingPathComponent("store.sqlite").path
        let pool = try SQLiteDatabase.openPool(path: path)
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        try pool.write { db in try db.execute(sql: "CREATE TABLE blob (id INTEGER PRIMARY KEY, bytes BLOB)") }
        return (path, pool)
    }

    static func insertBlobs(into pool: DatabasePool) throws {
        try pool.write { db in
            for id in 0..<64 { try db.execute(sql: "INSERT INTO blob VALUES (?, zeroblob(16384))", arguments: [id]) }
        }
    }

    @Test func committedWritesAreCopiedIntoTheFileOnceThereAreEnough() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, pool) = try Self.storeWithoutItsOwnCheckpoints(in: folder)
        defer { try? pool.close() }
        try Self.insertBlobs(into: pool)
        let before = try Self.fileSize(path)
        let checkpointer = WALCheckpointer(path: path, every: 2)
        defer { checkpointer.close() }

        checkpointer.committed(1)
        checkpointer.finish()
        #expect(try Self.fileSize(path) == before, "one write of the two it waits for")

        checkpointer.committed(1)
        checkpointer.finish()
        #expect(try Self.fileSize(path) >= before + 64 * 16384, "the table's pages are in the file")
        #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM blob") } == 64)
    }

    @Test func aClosedCheckpointerCopiesNothingMore() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, pool) = try Self.storeWithoutItsOwnCheckpoints(in: folder)
        defer { try? pool.close() }
        let checkpointer = WALCheckpointer(path: path, every: 1)
        checkpointer.committed(1)
        checkpointer.close()
        let before = try Self.fileSize(path)
        try Self.insertBlobs(into: pool)

        // Its connection, kept between checkpoints, is gone and no other is opened.
        checkpointer.committed(1)
        checkpointer.finish()
        #expect(try Self.fileSize(path) == before)
    }

    @Test func aClosedStoreLeavesItsWALEmpty() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let pool = try SQLiteDatabase.openPool(path: path)
        try SQLiteDatabase.migrate(pool)
        let repository = SQLiteRepository(pool: pool)
        // Fewer pages than the writer's own checkpoint waits for: they stay in the WAL until closing.
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE blob (id INTEGER PRIMARY KEY, bytes BLOB)")
            for id in 0..<16 { try db.execute(sql: "INSERT INTO blob VALUES (?, zeroblob(16384))", arguments: [id]) }
        }
        #expect(try Self.fileSize(path + "-wal") > 0)

        try repository.close()
        #expect(try Self.fileSize(path + "-wal") == 0, "a file copied whole is the whole store")
        let reopened = try SQLiteDatabase.openPool(path: path)
        defer { try? reopened.close() }
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM blob") } == 16)
    }
}
