import Foundation
import GRDB
import HearClearMigrations

/// Opening the SQLite file: one `DatabasePool` (WAL) per process, migrated before use.
public enum SQLiteDatabase {
    /// The writer's page cache in KiB (`PRAGMA cache_size` takes KiB as a negative number).
    static let writerCacheKiB = 64 * 1024

    public static func openPool(path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // Safe with WAL: a power cut can lose the last commits but never corrupts the file.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Each stored check-in is a savepoint of a shared transaction (`GroupCommit`): its undo
            // journal stays in memory instead of spilling to a temporary file on every write.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // A check-in's row with its seconds is a few KB: on SQLite's default 4 KB pages each
            // filled a page alone. Larger pages waste less of themselves but an upload dirties
            // about ten pages at random places in a large file, each written whole to the WAL and
            // again into the file: 32 KB stored as few bytes a second as 64 KB and ingested faster,
            // empty and at 10⁶ check-ins (docs/storage.md). Only a new file takes it; an existing
            // one keeps its own.
            try db.execute(sql: "PRAGMA page_size = 32768")
            // The one writer's page cache, 64 MB rather than SQLite's 2 MB: every upload reaches a
            // random page of the check-in id's index and of its venue's rows, and once the file
            // outgrew the cache those were read again through the kernel for every upload (`pread`
            // was a sixth of the growth case's fill at 6×10⁵ check-ins; docs/profiling.md). Readers keep
            // the default: answers are cached above them.
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = \(-writerCacheKiB)") }
        }
        // A new file is the server's alone: it holds where and when every device measured. SQLite
        // gives its WAL and shared-memory files the database file's mode.
        let created = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        if created >= 0 { close(created) }
        do {
            return try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError {
            // SQLite's own words ("SQLite error 14: unable to open database file") lack the path.
            throw StartFailure(
                description: "cannot open the database \(path): \(error.message ?? "\(error.resultCode)") (does its folder exist, and may this user write there?)")
        }
    }

    /// One registered migration per numbered file in `Migrations/sqlite`.
    public static func migrator() throws -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for file in try Migrations.files(for: .sqlite) {
            migrator.registerMigration(file.name) { db in
                try db.execute(sql: file.sql)
                switch Migrations.steps[.sqlite]?[file.name] {
                case .samplesIntoColumns: try SQLiteRepository.moveSamplesIntoColumns(in: db)
                case .histogramsIntoBytes: try SQLiteRepository.moveHistogramsIntoBytes(in: db)
                case .histogramsDense: try SQLiteRepository.makeHistogramsDense(in: db)
                case .secondsWeighed: try SQLiteRepository.weighSecondsAgain(in: db)
                case .venueNamesFolded: try SQLiteRepository.foldVenueNames(in: db)
                case nil: break
                }
            }
        }
        return migrator
    }

    /// Applies the migrations not applied yet; returns the schema version (the last migration's name).
    @discardableResult
    public static func migrate(_ writer: some DatabaseWriter) throws -> String {
        let migrator = try migrator()
        let applied = try writer.read { db in try migrator.appliedIdentifiers(db) }
        // A migration that builds a table again keeps every page it frees in its statement
        // journal, which `temp_store = MEMORY` (set for the group commit's savepoints) holds in
        // memory: migration 0013 at 10⁶ check-ins took 2.7 GB of it (docs/storage.md). In a
        // temporary file instead, for the migrations only.
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA temp_store = FILE") }
        defer { try? writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA temp_store = MEMORY") } }
        try migrator.migrate(writer)
        if !Migrations.deriveAgainAfter[.sqlite, default: []].subtracting(applied).isEmpty {
            try writer.write { db in try SQLiteRepository.deriveAgain(in: db) }
        }
        return try schemaVersion(writer)
    }

    public static func schemaVersion(_ reader: some DatabaseReader) throws -> String {
        try reader.read { db in
            try DatabaseMigrator().appliedIdentifiers(db).sorted().last ?? "empty"
        }
    }

    /// A consistent copy of a live database: VACUUM INTO reads one snapshot (WAL lets the server
    /// keep writing meanwhile) and writes a compact, self-contained file.
    public static func backup(path: String, to destination: String) throws {
        let source = try DatabaseQueue(path: path)
        try source.inDatabase { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [destination])
        }
    }
}
