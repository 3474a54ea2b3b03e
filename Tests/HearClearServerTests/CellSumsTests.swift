import Foundation
import HearClearAnalysis
import HearClearCore
import Testing

/// The one value both stores read and write a check-in hour's and a cell's sums through.
@Suite struct CellSumsTests {
    /// A check-in's seconds with every series: levels, details, classes.
    static func samples(count: Int, from start: Double = 0) -> [Sample] {
        (0..<count).map { index in
            let level = -50 + Double(index % 7) - Double(index % 3) * 1.5
            return Sample(
                t: start + Double(index), avg: level, peak: level + 12,
                details: LevelDetails(fastMax: level + 2, cAvg: level + 5, octaves: [level - 3, level - 4, level - 6, level - 9]),
                classes: SoundClasses(percent: (index * 13) % 101, (index * 29) % 101))
        }
    }

    @Test func storedValuesReadBackAsTheSameSums() throws {
        let clock = try #require(VenueClock(timeZoneIdentifier: "Europe/Paris"))
        let analysis = CheckInAnalysis(samples: Self.samples(count: 300), startedAt: Date(timeIntervalSince1970: 1_790_000_000), intervalS: 1, calibrationDB: 110, clock: clock)
        let sums = try #require(analysis.hours.values.first)
        #expect(sums.storedValues.count == CellSums.columns.count)
        // Each value is of its column's kind, so a store binds it as its column declares.
        for (value, column) in zip(sums.storedValues, CellSums.columns) {
            switch (value, column.kind) {
            case (.integer, .integer), (.real, .real), (.bytes, .bytes): break
            default: Issue.record("\(column.name): \(value) is not \(column.kind)")
            }
        }
        #expect(try CellSums(stored: sums.storedValues) == sums)
        #expect(sums.sounds.classified == sums.samples && sums.spread.levels.seconds == sums.samples && sums.details.samples == sums.samples)
    }

    @Test func aValueOfTheWrongKindOrCountIsRefusedByName() throws {
        let values = CellSums(samples: 60, energy: 1e6).storedValues
        var bytes = values
        bytes[0] = .bytes(Data([60]))
        let refusal = #expect(throws: StoredValue.Unexpected.self) { try CellSums(stored: bytes) }
        #expect(refusal?.column == "samples")
        #expect(throws: StoredValue.Unexpected.self) { try CellSums(stored: values.dropLast()) }
        // A real column may hold a whole number as an integer (SQLite keeps 0.0 so).
        var whole = values
        whole[1] = .integer(1_000_000)
        #expect(try CellSums(stored: whole) == CellSums(samples: 60, energy: 1e6))
        // NULL histograms (rows stored before there were any) read as no seconds.
        #expect(try CellSums(stored: values.map { if case .bytes = $0 { .null } else { $0 } }) == CellSums(samples: 60, energy: 1e6))
    }

    /// A pruned check-in keeps its hours: a new calibration moves its sums exactly as analysing its
    /// samples again with that calibration would have.
    @Test func recalibratedSumsEqualTheAnalysisAtTheNewCalibration() throws {
        let clock = try #require(VenueClock(timeZoneIdentifier: "UTC"))
        let samples = Self.samples(count: 5_000), start = Date(timeIntervalSince1970: 1_790_000_000)
        let before = CheckInAnalysis(samples: samples, startedAt: start, intervalS: 1, calibrationDB: 110, clock: clock)
        // A whole number of histogram bins (0.5 dB), as calibration offsets move them.
        let after = CheckInAnalysis(samples: samples, startedAt: start, intervalS: 1, calibrationDB: 113.5, clock: clock)
        #expect(before.hours.count == 2)
        for (hour, sums) in before.hours {
            let moved = sums.recalibrated(byDB: 3.5), expected = try #require(after.hours[hour])
            #expect(moved.matches(expected))
            #expect(moved.spread == expected.spread && moved.sounds == expected.sounds)
            #expect(!sums.matches(expected))
        }
    }
}
