import Foundation
import HearClearAnalysis
import HearClearCore
import TestCluster
import Testing

@testable import HearClearServer

/// The migrations that turn every stored level histogram from `bin:count` text into bytes, and
/// those bytes from the gaps between bins into a count per bin, on a store laid out as the release
/// before each left it (`SampleColumnsMigrationTests.fillAsAnEarlierRelease`).
struct HistogramBytesMigrationTests {
    /// The migrations that make histograms dense, and those before that made them bytes.
    static let denseMigrations = ["0012_histograms_dense", "0011_histograms_dense"]
    static let bytesMigrations = ["0010_histograms_as_bytes", "0011_drop_histogram_text", "0009_histograms_as_bytes", "0010_drop_histogram_text"]

    @Test(arguments: StoreKind.allCases) func textHistogramsBecomeBytesWithNothingLost(store: StoreKind) async throws {
        let database = try await TemporaryDatabase(store)
        _ = try await SampleColumnsMigrationTests.fillAsAnEarlierRelease(database)
        let cells = try await database.repository.loudness(venueID: "v1")
        let hours = try await Self.histograms(database, in: "checkin_hour")
        #expect(hours.count >= 4 && hours.contains { !$0.value[0].counts.isEmpty })
        try await Self.layOutAsBefore(database)

        let reopened = try await OpenedStore.open(database.location, logger: quietLogger)
        defer { reopened.close() }
        #expect(try await Self.histograms(database, in: "checkin_hour") == hours)
        #expect(try await reopened.store.verify() == [])
        #expect(try await reopened.store.loudness(venueID: "v1") == cells)
        await #expect(throws: (any Error).self) { try await database.strings("SELECT level_bins FROM loudness") }
    }

    @Test(arguments: StoreKind.allCases) func gappedHistogramsBecomeDenseWithNothingLost(store: StoreKind) async throws {
        let database = try await TemporaryDatabase(store)
        _ = try await SampleColumnsMigrationTests.fillAsAnEarlierRelease(database)
        let cells = try await database.repository.loudness(venueID: "v1")
        let hours = try await Self.histograms(database, in: "checkin_hour")
        let denseBytes = try await Self.histogramBytes(database)
        try await Self.layOutGapped(database)
        #expect(try await Self.histogramBytes(database) != denseBytes)

        let reopened = try await OpenedStore.open(database.location, logger: quietLogger)
        defer { reopened.close() }
        #expect(try await Self.histograms(database, in: "checkin_hour") == hours)
        #expect(try await Self.histogramBytes(database) == denseBytes)
        #expect(try await reopened.store.verify() == [])
        #expect(try await reopened.store.loudness(venueID: "v1") == cells)
    }

    /// What every stored histogram of both tables weighs.
    static func histogramBytes(_ database: TemporaryDatabase) async throws -> Int {
        let length = database.kind == .sqlite ? "length" : "octet_length"
        var total = 0
        for table in ["checkin_hour", "loudness"] {
            total += Int(try await database.strings("SELECT SUM(\(length)(level_histogram) + \(length)(fast_max_histogram)) FROM \(table)")[0])!
        }
        return total
    }

    /// The store as migration 0010 (SQLite; 0009 on PostgreSQL) left it: each histogram as the
    /// gaps between its bins, the migration that makes them dense not applied.
    static func layOutGapped(_ database: TemporaryDatabase) async throws {
        let bytes = { (histogram: LevelHistogram) in
            let hex = histogram.gapped.map { String(format: "%02x", $0) }.joined()
            return database.kind == .sqlite ? "X'\(hex)'" : "decode('\(hex)', 'hex')"
        }
        for (table, key) in [("checkin_hour", "checkin_seq"), ("loudness", "venue_id")] {
            for (row, spread) in try await histograms(database, in: table) {
                let fields = row.split(separator: " ")
                try await database.execute(
                    """
                    UPDATE \(table) SET level_histogram = \(bytes(spread[0])), fast_max_histogram = \(bytes(spread[1]))
                    WHERE \(key) = '\(fields[0])' AND weekday = \(fields[1]) AND hour = \(fields[2])
                    """)
            }
        }
        try await forget(denseMigrations, in: database)
    }

    static func forget(_ migrations: [String], in database: TemporaryDatabase) async throws {
        let names = migrations.map { "'\($0)'" }.joined(separator: ", ")
        try await database.execute(
            database.kind == .sqlite
                ? "DELETE FROM grdb_migrations WHERE identifier IN (\(names))" : "DELETE FROM hearclear_migration WHERE name IN (\(names))")
    }

    /// A row's key and its two histograms, from each row of `table`.
    static func histograms(_ database: TemporaryDatabase, in table: String) async throws -> [String: [LevelHistogram]] {
        let hex = { (column: String) in database.kind == .sqlite ? "hex(\(column))" : "encode(\(column), 'hex')" }
        let key = table == "loudness" ? "venue_id" : "checkin_seq"
        var found: [String: [LevelHistogram]] = [:]
        for line in try await database.strings(
            "SELECT \(key) || ' ' || weekday || ' ' || hour || ' |' || \(hex("level_histogram")) || '|' || \(hex("fast_max_histogram")) FROM \(table)")
        {
            let parts = line.split(separator: "|", omittingEmptySubsequences: false)
            found[String(parts[0])] = try parts.dropFirst().map { try LevelHistogram(stored: Data(hexDigits: $0)) }
        }
        return found
    }

    /// The store as the migrations before the histograms' bytes left it: each histogram as
    /// `bin:count` text in `level_bins` and `fast_max_bins`, the migrations since not applied.
    static func layOutAsBefore(_ database: TemporaryDatabase) async throws {
        let text = database.kind == .sqlite ? "TEXT" : "text"
        for (table, key) in [("checkin_hour", "checkin_seq"), ("loudness", "venue_id")] {
            let rows = try await histograms(database, in: table)
            try await database.execute("ALTER TABLE \(table) ADD COLUMN level_bins \(text)")
            try await database.execute("ALTER TABLE \(table) ADD COLUMN fast_max_bins \(text)")
            for (row, spread) in rows {
                let fields = row.split(separator: " ")
                let texts = spread.map { histogram in
                    histogram.counts.keys.sorted().map { "\($0):\(histogram.counts[$0]!)" }.joined(separator: ",")
                }
                try await database.execute(
                    """
                    UPDATE \(table) SET level_bins = '\(texts[0])', fast_max_bins = '\(texts[1])'
                    WHERE \(key) = '\(fields[0])' AND weekday = \(fields[1]) AND hour = \(fields[2])
                    """)
            }
            try await database.execute("ALTER TABLE \(table) DROP COLUMN level_histogram")
            try await database.execute("ALTER TABLE \(table) DROP COLUMN fast_max_histogram")
        }
        try await forget(bytesMigrations + denseMigrations, in: database)
    }
}
