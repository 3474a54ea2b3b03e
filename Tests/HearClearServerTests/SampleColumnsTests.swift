import Foundation
import HearClearAnalysis
import HearClearCore
import Testing

/// The samples blob: what goes in comes out, exactly, and a damaged blob is an error, never a crash.
struct SampleColumnsTests {
    /// An API v2 hour: every level a whole tenth, details and classes on every second.
    static func measuredHour(seconds: Int = 3600) -> SampleColumns {
        var generator = SplitMix64(seed: 7)
        var level = -40.0
        let samples = (0..<seconds).map { index in
            level = min(-5, max(-80, level + Double(Int(generator.next() % 41) - 20) / 10))
            let avg = (level * 10).rounded() / 10
            return Sample(
                t: Double(index), avg: avg, peak: avg + Double(generator.next() % 150) / 10,
                details: LevelDetails(fastMax: avg + 1.5, cAvg: avg + 4.2, octaves: [avg - 3, avg - 4.1, avg - 6, avg - 9.9]),
                classes: SoundClasses(percent: Int(generator.next() % 101), Int(generator.next() % 101)))
        }
        return SampleColumns(samples: samples, dropped: samples.indices.map { $0 % 997 == 5 })
    }

    @Test func anHourOfMeasuredSecondsComesBackExactlyInFewBytes() throws {
        let hour = Self.measuredHour()
        let blob = hour.encoded(intervalS: 1)
        #expect(try SampleColumns(decoding: blob, intervalS: 1) == hour)
        // Eight levels, two classes and the flags of a second in far fewer than the 85 bytes a row
        // took, though here the level, the peak and both classes are new noise every second
        // (`make bench` measures bytes per second on a whole store).
        #expect(Double(blob.count) / 3600 < 16)
    }

    @Test func hundredthsAreKeptInWholeStepsToo() throws {
        // API v1 clients (and the demo) send hundredths: still steps, not doubles.
        var hour = Self.measuredHour()
        hour.samples = hour.samples.map { sample in
            Sample(t: sample.t, avg: sample.avg - 0.03, peak: sample.peak + 0.01, details: sample.details, classes: sample.classes)
        }
        let blob = hour.encoded(intervalS: 1)
        #expect(try SampleColumns(decoding: blob, intervalS: 1) == hour)
        #expect(Double(blob.count) / 3600 < 16)
    }

    @Test func levelsOfAnyPrecisionAndIrregularTimesAreKeptAsTheyCame() throws {
        // API v1 brings doubles of any precision and any t; some seconds with details, some without.
        let samples = [
            Sample(t: 0.25, avg: -41.23456, peak: -20.1),
            Sample(t: 1.5, avg: -40.1, peak: -19.987654321, details: LevelDetails(fastMax: -38.01, cAvg: -35, octaves: [-50, -51, -52, -53])),
            Sample(t: 2.75, avg: -.ulpOfOne, peak: 0, classes: SoundClasses(percent: 100, 0)),
        ]
        let columns = SampleColumns(samples: samples, dropped: [false, true, false])
        #expect(try SampleColumns(decoding: columns.encoded(intervalS: 1), intervalS: 1) == columns)
    }

    @Test func noSamplesIsABlobToo() throws {
        let empty = SampleColumns(samples: [], dropped: [])
        #expect(try SampleColumns(decoding: empty.encoded(intervalS: 1), intervalS: 1) == empty)
    }

    @Test func regularTimesFollowTheInterval() throws {
        let samples = (0..<20).map { Sample(t: Double($0) * 0.5, avg: -30, peak: -20) }
        let columns = SampleColumns(samples: samples, dropped: Array(repeating: false, count: 20))
        let blob = columns.encoded(intervalS: 0.5)
        #expect(try SampleColumns(decoding: blob, intervalS: 0.5) == columns)
        // Read with another interval, the times move: `t` was not stored.
        #expect(try SampleColumns(decoding: blob, intervalS: 1).samples.last?.t == 19)
    }

    @Test func aDamagedBlobIsAnErrorThatSaysSo() throws {
        let blob = Self.measuredHour(seconds: 60).encoded(intervalS: 1)
        let unreadable: [(Data, String)] = [
            (Data(), "ends"),
            (Data([9]) + blob.dropFirst(), "format 9"),
            (blob.prefix(blob.count - 5), "inflate"),
            (Data(blob.prefix(3)) + Data(repeating: 0xFF, count: 40), "inflate"),
            (Data([1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]), "claims"),
        ]
        for (damaged, words) in unreadable {
            #expect {
                _ = try SampleColumns(decoding: damaged, intervalS: 1)
            } throws: { error in
                (error as? SampleColumns.Unreadable)?.description.contains(words) == true
            }
        }
        // Every prefix and every single flipped byte: an error or (rarely) other samples, never a crash.
        for length in 0..<blob.count { _ = try? SampleColumns(decoding: blob.prefix(length), intervalS: 1) }
        for index in blob.indices {
            var flipped = blob
            flipped[index] ^= 0x5A
            _ = try? SampleColumns(decoding: flipped, intervalS: 1)
        }
    }
}
