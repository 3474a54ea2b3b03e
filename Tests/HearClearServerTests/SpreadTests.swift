import Foundation
import HearClearCore
import TestCluster
import Testing

@testable import HearClearAnalysis
@testable import HearClearServer

/// A cell's spread (L10, L50, L90 and the 90th percentile of Fast maxima): read from 0.5 dB
/// histograms that the stores keep in step with the cells, checked against percentiles the test
/// computes from the levels it sent.
@Suite struct SpreadTests {
    /// The level exceeded in `percent` % of `levels` by nearest rank from the loudest, to the 0.5 dB
    /// bin it falls in: the definition, written out without histograms.
    static func exceeded(_ percent: Double, in levels: [Double]) -> Double {
        let sorted = levels.sorted(by: >)
        let rank = max(1, Int((percent / 100 * Double(sorted.count)).rounded(.up)))
        return (sorted[rank - 1] * 2).rounded() / 2
    }

    @Test func percentilesAreReadByNearestRankFromTheLoudest() throws {
        var spread = LevelSpread.empty
        for level in [60.0, 61, 62, 63, 64, 65, 66, 67, 68, 69] { spread.add(levelDB: level, fastMaxDB: level + 5, seconds: 1) }
        #expect(spread.l10 == 69 && spread.l50 == 65 && spread.l90 == 61)
        #expect(spread.fastMaxP90 == 74)
        // Bins are centred on whole and half decibels.
        var histogram = LevelHistogram.empty
        for level in [70.2, 70.24, 70.26, 70.74, 70.76] { histogram.add(level, seconds: 1) }
        #expect(histogram.counts == [140: 2, 141: 2, 142: 1])
        // Added in any order, below and above the bins so far; histograms add bin by bin.
        var unordered = LevelHistogram.empty
        for level in [70.0, 65.0, 80.0, 65.0, 72.5] { unordered.add(level, seconds: 1) }
        #expect(unordered.counts == [130: 2, 140: 1, 145: 1, 160: 1] && unordered.seconds == 5)
        #expect(unordered.adding(histogram).counts == [130: 2, 140: 3, 141: 2, 142: 1, 145: 1, 160: 1])
        #expect(unordered.adding(.empty) == unordered && LevelHistogram.empty.adding(unordered) == unordered)
        #expect(LevelHistogram.empty.exceeded(percent: 50) == nil)
        // One second is every percentile.
        #expect(LevelSpread(levels: LevelHistogram(counts: [150: 1]), fastMaxima: .empty).l90 == 75)
    }

    @Test func theStoredBytesReadBackAndAnythingElseIsAnError() throws {
        let histogram = LevelHistogram(counts: [-3: 2, 140: 7, 141: 1, 144: 300])
        // -3 as a zigzag number, then the count of every bin from it to the highest as varints,
        // each 0 followed by how many more empty bins follow it.
        #expect(histogram.stored == Data([5, 2, 0, 141, 1, 7, 1, 0, 1, 0xAC, 0x02]))
        #expect(LevelHistogram(counts: [140: 7, 141: 1, 143: 2]).stored == Data([0x98, 0x02, 7, 1, 0, 0, 2]))
        // Seconds that wander over neighbouring bins, as a level does: about a byte a bin, half the gaps' form.
        var wandering = LevelHistogram.empty, level = 60.0, walk = SplitMix64(seed: 3)
        for _ in 0..<300 {
            wandering.add(level, seconds: 1)
            level += Double(Int.random(in: -2...2, using: &walk)) * LevelHistogram.binWidthDB
        }
        #expect(wandering.stored.count * 3 < wandering.gapped.count * 2, "\(wandering.stored.count) against \(wandering.gapped.count)")
        #expect(try LevelHistogram(stored: histogram.stored) == histogram)
        #expect(try LevelHistogram(stored: nil) == .empty && (try LevelHistogram(stored: Data())) == .empty && LevelHistogram.empty.stored.isEmpty)
        for malformed: [UInt8] in [
            // No count, a first or last bin without seconds, a count or run cut off, a run after a run.
            [2], [2, 0, 0, 1], [2, 0x80], [2, 1, 0, 0], [2, 1, 0], [2, 1, 0, 0, 0, 0, 1], [2, 1, 0, 0x80],
            // Bins beyond ±100,000, by the lowest, by counts or by a run; a count beyond 10^12.
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 1], [0xC0, 0x9A, 0x0C, 1, 1],
            [2, 1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 1], [2, 1, 0, 0xC0, 0x9A, 0x0C, 1],
            [2, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
        ] {
            #expect(throws: LevelHistogram.Malformed.self, "\(malformed)") { try LevelHistogram(stored: Data(malformed)) }
        }
        // Any histogram reads back, in either form; every byte cut off its end is refused or reads as fewer bins.
        var random = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let counts = Dictionary((0..<Int.random(in: 0..<40, using: &random)).map { _ in
                (Int.random(in: -300..<300, using: &random), Int.random(in: 1...100_000, using: &random))
            }) { first, _ in first }
            let histogram = LevelHistogram(counts: counts)
            #expect(try LevelHistogram(stored: histogram.stored) == histogram)
            #expect(try LevelHistogram(gapped: histogram.gapped) == histogram)
            let forms: [(bytes: Data, read: (Data) throws -> LevelHistogram)] = [
                (histogram.stored, { try LevelHistogram(stored: $0) }), (histogram.gapped, { try LevelHistogram(gapped: $0) }),
            ]
            for form in forms {
                for length in 0..<form.bytes.count {
                    if let shorter = try? form.read(form.bytes.prefix(length)) { #expect(shorter.counts.count < counts.count) }
                }
            }
        }
        #expect(histogram.shifted(byDB: 3).counts == [3: 2, 146: 7, 147: 1, 150: 300])
        #expect(histogram.shifted(byDB: 0.2).counts == histogram.counts)
    }

    /// The bytes the stores kept before the histograms were dense: written by the migration to
    /// bytes and read by the one to dense.
    @Test func theGappedBytesOfEarlierReleasesReadAndAnythingElseIsAnError() throws {
        let histogram = LevelHistogram(counts: [-3: 2, 140: 7, 141: 1, 144: 300])
        // -3 as a zigzag number, then each bin's distance from the one before less one; counts as varints.
        #expect(histogram.gapped == Data([5, 2, 142, 1, 7, 0, 1, 2, 0xAC, 0x02]))
        #expect(try LevelHistogram(gapped: nil) == .empty && LevelHistogram.empty.gapped.isEmpty)
        for malformed: [UInt8] in [
            [2], [2, 0], [2, 0x80], [2, 1, 0], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 1], [2, 1, 0xFF, 0xFF, 0x7F, 1],
            [2, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
        ] {
            #expect(throws: LevelHistogram.Malformed.self, "\(malformed)") { try LevelHistogram(gapped: Data(malformed)) }
        }
    }

    /// The text the stores kept before bytes: read once, by the migration to bytes.
    @Test func theTextOfEarlierReleasesReadsAndAnythingElseIsAnError() throws {
        #expect(try LevelHistogram(text: "-3:2,140:7,141:1") == LevelHistogram(counts: [-3: 2, 140: 7, 141: 1]))
        #expect(try LevelHistogram(text: nil) == .empty && (try LevelHistogram(text: "")) == .empty)
        for malformed in [
            "140", "140:x", "140:0", "140:1,140:2", "140:1,", "a:1", "-:1", "1:-1", "1:2:3", "1::2", " 1:2", "1:2,,3:4", "+1:2",
            "12345678901234567890:1", "1:99999999999999999999",
        ] {
            #expect(throws: LevelHistogram.Malformed.self) { try LevelHistogram(text: malformed) }
        }
    }

    /// Check-ins whose seconds rise by 0.1 dB from different starts: the stored cells' percentiles
    /// are those of every counting second, through additions, a ban (summed again) and `verify`.
    @Test(arguments: StoreKind.allCases) func theCellsSpreadFollowsEveryCountingSecond(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let first = try await database.registerDevice(), second = try await database.registerDevice()
        _ = try await database.repository.saveVenue(id: "v", VenueUpsert(name: "V", latitude: 0, longitude: 0, timezone: "UTC"), by: first, at: Date())
        var sent: [UUID: [(level: Double, fastMax: Double)]] = [first: [], second: []]
        for (index, device) in [first, first, second].enumerated() {
            let start = -55.0 + 4 * Double(index)
            // Slow rises: no second is a spike. Levels in tenths, as v2 check-ins bring them.
            let seconds = (0..<90).map { second in (level: ((start + Double(second) / 10) * 10).rounded() / 10, fastMax: ((start + 3 + Double(second % 7)) * 10).rounded() / 10) }
            var checkIn = makeCheckIn(venue: "v", start: mondayEvening(weeksBefore: index), seconds: 90)
            checkIn.samples = seconds.enumerated().map { second, levels in
                Sample(t: Double(second), avg: levels.level, peak: min(0, levels.level + 10), details: LevelDetails(fastMax: levels.fastMax, cAvg: levels.level + 3, octaves: [-60, -60, -60, -60]))
            }
            _ = try await database.repository.storeCheckIn(checkIn, contentHash: CheckInController.contentHash(checkIn), by: device, at: Date())
            sent[device, default: []] += seconds.map { ($0.level + 110, $0.fastMax + 110) }
        }

        func expectSpread(of devices: [UUID]) async throws {
            let levels = devices.flatMap { sent[$0] ?? [] }
            let overall = try #require(try await database.repository.loudness(venueID: "v")?.first { $0.weekday == 7 && $0.hour == 24 })
            #expect(overall.samples == levels.count)
            #expect(overall.spread.l10 == Self.exceeded(10, in: levels.map(\.level)))
            #expect(overall.spread.l50 == Self.exceeded(50, in: levels.map(\.level)))
            #expect(overall.spread.l90 == Self.exceeded(90, in: levels.map(\.level)))
            #expect(overall.spread.fastMaxP90 == Self.exceeded(10, in: levels.map(\.fastMax)))
            #expect(try await database.repository.verify() == [])
        }
        try await expectSpread(of: [first, second])
        _ = try await database.repository.setBanned(device: second, banned: true)
        try await expectSpread(of: [first])
    }

    /// A database from before the histograms: after migrating, they are derived from the samples,
    /// and a check-in whose samples are gone reads as no seconds rather than failing.
    @Test(arguments: StoreKind.allCases) func migratingFillsTheHistogramsOfEarlierCheckIns(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        _ = try await database.repository.saveVenue(id: "v", VenueUpsert(name: "V", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        for week in 0..<3 {
            let checkIn = makeCheckIn(venue: "v", start: mondayEvening(weeksBefore: week), level: -50)
            _ = try await database.repository.storeCheckIn(checkIn, contentHash: CheckInController.contentHash(checkIn), by: device, at: Date())
        }
        func overall() async throws -> LoudnessAggregate? { try await database.repository.loudness(venueID: "v")?.first { $0.weekday == 7 && $0.hour == 24 } }
        // Seconds at 59.5 and 60.5 dB(A), half each; retention then drops the oldest check-in's.
        #expect(try await overall()?.spread.levels.counts == [119: 90, 121: 90])
        #expect(try await database.repository.pruneSamples(startedBefore: try #require(Timestamp.parse(mondayEvening(weeksBefore: 1))), at: Date()) == 1)

        // Back to the schema before the histograms (and before they became bytes).
        let migrations = (kind == .sqlite ? ["0005_level_spread", "0010_histograms_as_bytes", "0011_drop_histogram_text"]
            : ["0004_level_spread", "0009_histograms_as_bytes", "0010_drop_histogram_text"]).map { "'\($0)'" }.joined(separator: ", ")
        for table in ["checkin_hour", "loudness"] {
            for column in LevelSpread.columns { try await database.execute("ALTER TABLE \(table) DROP COLUMN \(column)") }
        }
        switch kind {
        case .sqlite:
            try await database.execute("DELETE FROM grdb_migrations WHERE identifier IN (\(migrations))")
            try SQLiteDatabase.migrate(try #require((database.repository as? SQLiteRepository)?.pool))
        case .postgres:
            try await database.execute("DELETE FROM hearclear_migration WHERE name IN (\(migrations))")
            let store = try await OpenedStore.open(.postgres(try PostgresAddress(url: try #require(database.url))), logger: quietLogger)
            store.close()
        }
        let migrated = try #require(try await overall())
        #expect(migrated.samples == 180 && migrated.spread.levels.counts == [119: 60, 121: 60])
        #expect(try await database.repository.verify() == [])
    }
}
