import Foundation
import HearClearAnalysis
import HearClearCore
import TestCluster
import Testing

@testable import HearClearServer

/// Retention drops old raw samples and keeps what they added to the aggregates.
@Suite struct RetentionTests {
    @Test(arguments: StoreKind.allCases) func oldSamplesGoAndTheAggregatesAndVerifyStay(store: StoreKind) async throws {
        let database = try await TemporaryDatabase(store)
        let device = try await database.registerDevice(model: "Cheap Mic")
        _ = try await database.repository.saveVenue(id: "v1", VenueUpsert(name: "V", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: Date())
        for week in 0..<6 {
            let checkIn = makeCheckIn(venue: "v1", start: mondayEvening(weeksBefore: week), level: -50, calibration: nil)
            _ = try await database.repository.storeCheckIn(checkIn, contentHash: CheckInController.contentHash(checkIn), by: device, at: Date())
        }
        let before = try #require(try await database.repository.loudness(venueID: "v1"))
        // Seconds at 59.5 and 60.5 dB(A) (−50 ± 0.5 dBFS + 110), half each.
        let spread = try #require(before.first { $0.weekday == 7 && $0.hour == 24 }?.spread)
        #expect(spread.l10 == 60.5 && spread.l50 == 60.5 && spread.l90 == 59.5)

        // Two of the six started before the cutoff: three weeks before the latest.
        let cutoff = try #require(Timestamp.parse(mondayEvening(weeksBefore: 3)))
        #expect(try await database.repository.pruneSamples(startedBefore: cutoff, at: Date()) == 2)
        #expect(try await database.storedSamples().count == 4 * 60)
        #expect(try await database.repository.pruneSamples(startedBefore: cutoff, at: Date()) == 0)
        #expect(try await database.repository.loudness(venueID: "v1")?.map(Self.key).sorted() == before.map(Self.key).sorted())
        #expect(try await database.repository.verify() == [])
        try await database.repository.rebuild()
        #expect(try await database.repository.loudness(venueID: "v1")?.map(Self.key).sorted() == before.map(Self.key).sorted())

        // A new calibration for the model still applies to the pruned check-ins: 110 → 113 dB.
        try await database.repository.setCalibration(model: "Cheap Mic", offsetDB: 113, at: Date())
        let overall = try #require(try await database.repository.loudness(venueID: "v1")?.first { $0.weekday == 7 && $0.hour == 24 })
        #expect(abs((overall.levelDB ?? 0) - 63.02) < 0.01)
        // The pruned check-ins' histograms moved with them (six bins), the others were derived again.
        #expect(overall.spread.levels.counts == [125: 180, 127: 180])
        #expect(try await database.repository.verify() == [])
    }

    /// An aggregate as the answers show it (levels to a millionth of a dB, so summation order does not matter).
    static func key(_ aggregate: LoudnessAggregate) -> String {
        "\(aggregate.weekday)/\(aggregate.hour): \(aggregate.checkins) \(aggregate.samples) \(String(format: "%.6f", aggregate.levelDB ?? 0))"
    }
}
