import Foundation
import HearClearAnalysis
import HearClearCore
import TestCluster
import Testing

@testable import HearClearServer

/// The migration that moves each check-in's `sample` rows into its blob, on a store laid out as
/// the release before it left it: v1 and v2 check-ins, a pruned one and one of a banned device.
struct SampleColumnsMigrationTests {
    @Test(arguments: StoreKind.allCases) func rowsMoveIntoBlobsWithNothingLost(store: StoreKind) async throws {
        let database = try await TemporaryDatabase(store)
        let (device, v1, pruned) = try await Self.fillAsAnEarlierRelease(database)

        let blobsInHex = "SELECT \(database.kind == .sqlite ? "hex(sample_columns)" : "encode(sample_columns, 'hex')") FROM checkin ORDER BY seq"
        let blobs = try await database.strings(blobsInHex)
        let samples = try await database.storedSamples()
        let cells = try await database.repository.loudness(venueID: "v1")
        try await Self.layOutAsBefore(database)
        #expect(try await database.int("SELECT COUNT(*) FROM sample") == 90 + 200 + 60)

        let reopened = try await OpenedStore.open(database.location, logger: quietLogger)
        defer { reopened.close() }
        #expect(try await database.strings(blobsInHex) == blobs)
        #expect(try await database.storedSamples().elementsEqual(samples) { $0.sample == $1.sample && $0.dropped == $1.dropped })
        #expect(try await reopened.store.verify() == [])
        #expect(try await reopened.store.loudness(venueID: "v1") == cells)
        #expect(try await reopened.store.uploadedCheckIn(id: v1.id, by: device)?.samples == v1.samples)
        #expect(try await reopened.store.uploadedCheckIn(id: pruned.id, by: device)?.samples == [])
        await #expect(throws: (any Error).self) { try await database.count("sample") }
    }

    /// What a store of an earlier release may hold, in venue "v1": a v1 check-in (levels of any
    /// precision, irregular times), a v2 one with every detail and class, one whose samples
    /// retention dropped (its hours cannot be derived again) and one of a banned device; `verify` passes.
    static func fillAsAnEarlierRelease(_ database: TemporaryDatabase) async throws -> (device: UUID, v1: CheckIn, pruned: CheckIn) {
        let device = try await database.registerDevice(), banned = try await database.registerDevice(model: "Other Mic")
        _ = try await database.repository.saveVenue(id: "v1", VenueUpsert(name: "V", latitude: 0, longitude: 0, timezone: "Europe/Paris"), by: device, at: Date())
        // API v1: levels of any precision, irregular times, no details or classes.
        var v1 = makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 1), seconds: 90)
        v1.samples = v1.samples.map { Sample(t: $0.t * 1.25, avg: $0.avg - 0.123, peak: $0.peak - 0.0456) }
        v1.samples[40] = Sample(t: 50, avg: -3, peak: -1)
        // API v2: whole tenths, every detail and class.
        var v2 = CheckInV2Tests.detailedCheckIn(venue: "v1", seconds: 200)
        v2.samples = v2.samples.enumerated().map { index, sample in
            var sample = sample
            sample.classes = SoundClasses(percent: index % 101, 100 - index % 101)
            return sample
        }
        let pruned = makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 20), seconds: 60, level: -40)
        let fromBanned = makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: 2), seconds: 60, level: -45)
        for (checkIn, by) in [(v1, device), (v2, device), (pruned, device), (fromBanned, banned)] {
            _ = try await database.repository.storeCheckIn(checkIn, contentHash: Data(checkIn.id.wireString.utf8), by: by, at: Date())
        }
        #expect(try await database.repository.pruneSamples(startedBefore: try #require(Timestamp.parse(mondayEvening(weeksBefore: 10))), at: Date()) == 1)
        try await database.ban(banned)
        try await database.repository.rebuild()
        #expect(try await database.repository.verify() == [])
        return (device, v1, pruned)
    }

    /// The store as migrations before `Migrations.Step.samplesIntoColumns` leave it: a `sample` row per
    /// second (dropped flags included), no blob, the two migrations not applied.
    static func layOutAsBefore(_ database: TemporaryDatabase) async throws {
        let sqlite = database.kind == .sqlite
        let real = sqlite ? "REAL" : "double precision", small = sqlite ? "INTEGER" : "smallint"
        try await database.execute(
            """
            CREATE TABLE sample (checkin_seq \(sqlite ? "INTEGER" : "bigint") NOT NULL REFERENCES checkin (seq) ON DELETE CASCADE,
                t \(real) NOT NULL, avg \(real) NOT NULL, peak \(real) NOT NULL, dropped \(sqlite ? "INTEGER" : "boolean") NOT NULL,
                fast_max \(real), c_avg \(real), oct_500 \(real), oct_1000 \(real), oct_2000 \(real), oct_4000 \(real),
                speech \(small), music \(small), PRIMARY KEY (checkin_seq, t))
            """)
        let seqs = try await database.strings("SELECT seq FROM checkin WHERE sample_columns IS NOT NULL ORDER BY seq")
        var rows = try await database.storedSamples()[...]
        for seq in seqs {
            let count = try await database.int("SELECT samples FROM checkin WHERE seq = \(seq)")
            let values = rows.prefix(count).map { sample, dropped in
                func level(_ value: Double?) -> String { value.map { "\($0)" } ?? "NULL" }
                let details = sample.details.map { [$0.fastMax, $0.cAvg] + $0.octaves } ?? Array(repeating: nil, count: 6)
                let classes = sample.classes?.percent
                return "(\(seq), \(sample.t), \(sample.avg), \(sample.peak), \(dropped ? "TRUE" : "FALSE"), \(details.map(level).joined(separator: ", ")), "
                    + "\(classes.map { "\($0.speech), \($0.music)" } ?? "NULL, NULL"))"
            }
            rows = rows.dropFirst(count)
            try await database.execute("INSERT INTO sample VALUES \(values.joined(separator: ", "))")
        }
        try await database.execute("ALTER TABLE checkin DROP COLUMN sample_columns")
        let migrations = ["0008_sample_columns", "0009_drop_sample", "0007_sample_columns", "0008_drop_sample"].map { "'\($0)'" }.joined(separator: ", ")
        try await database.execute(
            sqlite ? "DELETE FROM grdb_migrations WHERE identifier IN (\(migrations))" : "DELETE FROM hearclear_migration WHERE name IN (\(migrations))")
    }
}
