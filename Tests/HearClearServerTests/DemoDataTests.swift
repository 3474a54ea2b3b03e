import Foundation
import HearClearAnalysis
import HearClearCore
import Testing

@testable import HearClearServer

@Suite struct DemoDataTests {
    /// What a page reads of a cell: its counts and spread, and its levels to a hundredth of a dB
    /// (energies summed in another order differ in their last bits).
    struct Seen: Equatable {
        let cell: String
        let checkIns: Int
        let samples: Int
        let levels: [Double]
        let spread: LevelSpread
        let sounds: SoundCounts

        init(_ aggregate: LoudnessAggregate) {
            let sums = aggregate.sums
            cell = "\(aggregate.weekday)-\(aggregate.hour)"
            checkIns = aggregate.checkins
            samples = sums.samples
            let energies = [sums.energy / Double(max(1, sums.samples))] + sums.details.energies.map { $0 / Double(max(1, sums.details.samples)) }
            levels = energies.map { ($0 > 0 ? Level.level(energy: $0) * 100 : 0).rounded() / 100 }
            spread = sums.spread
            sounds = sums.sounds
        }
    }

    /// The demo is the same every time relative to `now`: whatever day it is seeded on, each venue
    /// holds the same cells, weekday by weekday and hour by hour, so that what the pages and tests
    /// read of it ("Easiest conversation on Fridays at 20:00") does not change with the date. Seeded
    /// a day and an hour apart, across midnight in Sydney (13:00 UTC), and ten days later.
    @Test func theDemoHoldsTheSameWeekWhateverDayItIsSeeded() async throws {
        var cells: [[String: [Seen]]] = []
        for now in ["2026-11-30T12:30:00Z", "2026-12-01T13:30:00Z", "2026-12-10T04:00:00Z"] {
            let database = try await TemporaryDatabase()
            _ = try await DemoData.seed(into: database.repository, defaultCalibrationDB: Level.defaultCalibrationDB, now: Timestamp.parse(now)!)
            var venues: [String: [Seen]] = [:]
            for city in ["sydney", "london", "newyork"] {
                for index in 1...12 {
                    venues["\(city)-\(index)"] = try #require(try await database.repository.loudness(venueID: "\(city)-\(index)")).map(Seen.init)
                }
            }
            cells.append(venues)
        }
        for venue in cells[0].keys.sorted() {
            #expect(cells[1][venue] == cells[0][venue], "\(venue): seeded a day later")
            #expect(cells[2][venue] == cells[0][venue], "\(venue): seeded ten days later")
        }
    }
}
