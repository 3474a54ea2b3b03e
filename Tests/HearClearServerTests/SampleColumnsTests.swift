import Foundation
import HearClearAnalysis
import HearClearCore
import Testing

/// The samples blob: what goes in comes out, exactly, and a damaged blob is an error, never a crash.
struct SampleColumnsTests {
    /// An API v2 hour: every level a whole tenth, details and classes on every second.
    static func measuredHour(seconds: Int = 3600) -> SampleColumns {
        var generator = SplitMix64(seed: 7)
        var level = -400
        // As the server reads tenths from an upload: each level a whole number of tenths over 10.
        let tenths = { (steps: Int) in Double(steps) / 10 }
        let samples = (0..<seconds).map { index in
            level = min(-50, max(-800, level + Int(generator.next() % 41) - 20))
            return Sample(
                t: Double(index), avg: tenths(level), peak: tenths(level + Int(generator.next() % 150)),
                details: LevelDetails(
                    fastMax: tenths(level + 15), cAvg: tenths(level + 42), octaves: [tenths(level - 30), tenths(level - 41), tenths(level - 60), tenths(level - 99)]),
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
        #expect(Double(blob.count) / 3600 < 5)
    }

    @Test func hundredthsAreKeptInWholeStepsToo() throws {
        // API v1 clients (and the demo) send hundredths: still steps, not doubles.
        var hour = Self.measuredHour()
        hour.samples = hour.samples.map { sample in
            let hundredths = { (level: Double, change: Int) in Double(Int((level * 100).rounded()) + change) / 100 }
            return Sample(t: sample.t, avg: hundredths(sample.avg, -3), peak: hundredths(sample.peak, 1), details: sample.details, classes: sample.classes)
        }
        let blob = hour.encoded(intervalS: 1)
        #expect(try SampleColumns(decoding: blob, intervalS: 1) == hour)
        #expect(Double(blob.count) / 3600 < 5)
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
            (Data(), "ends before its format"),
            (Data([9]) + blob.dropFirst(), "format 9"),
            (blob.prefix(3), "ends before its checksum"),
            (blob.prefix(blob.count - 5), "checksum"),
            (blob + Data([0]), "checksum"),
            (Data(blob.prefix(5)) + Data(repeating: 0xFF, count: 40), "checksum"),
            (Data([1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]), "claims"),
        ]
        for (damaged, words) in unreadable {
            #expect {
                _ = try SampleColumns(decoding: damaged, intervalS: 1)
            } throws: { error in
                (error as? SampleColumns.Unreadable)?.description.contains(words) == true
            }
        }
        // Every prefix and every single flipped byte is caught by the checksum.
        for length in 0..<blob.count {
            #expect(throws: SampleColumns.Unreadable.self) { try SampleColumns(decoding: blob.prefix(length), intervalS: 1) }
        }
        for index in blob.indices.dropFirst() {
            var flipped = blob
            flipped[index] ^= 0x5A
            #expect(throws: SampleColumns.Unreadable.self) { try SampleColumns(decoding: flipped, intervalS: 1) }
        }
    }

    /// Blobs that the release before format 2 stored (its server, given these two check-ins over the
    /// API, then `SELECT hex(sample_columns) FROM checkin`): still read, to the same seconds.
    static let formatOneBlobs = (
        measured: "018A01789CE3E162DCCFCEC2C6BC8A65390B2B33331B0B13E33E460604609440E6042173AC913991C89C4A64CE7A462420C2C2C6C5C2E6C6C4C2C7A2B2809181919997D3909353589693910500326D0743",
        doubles: "0135789C6366609854F9849F6D9ECB81B3678080C7E5000318B81E6098351308244D0E6C2B7AF0F2DA1F63884483E9010600358214F2")

    @Test func blobsOfTheFirstFormatAreStillRead() throws {
        // An API v2 upload of 12 seconds: tenths, every series, the classes, one spike dropped.
        let averages = [-480, -478, -475, -477, -200, -476, -479, -481, -483, -480, -478, -477].map { Double($0) / 10 }
        let speech = [10, 12, 15, 20, 22, 25, 60, 61, 63, 70, 72, 90], music = [80, 80, 79, 77, 70, 65, 40, 35, 30, 20, 5, 0]
        let measured = SampleColumns(
            samples: averages.enumerated().map { index, avg in
                Sample(
                    t: Double(index), avg: avg, peak: avg + 9.5,
                    details: LevelDetails(fastMax: avg + 1.2, cAvg: avg + 4.1, octaves: [avg - 3, avg - 4.5, avg - 6.1, avg - 8.8 - Double(index) / 10]),
                    classes: SoundClasses(percent: speech[index], music[index]))
            },
            dropped: averages.indices.map { $0 == 4 })
        let read = try SampleColumns(decoding: Data(hexDigits: Self.formatOneBlobs.measured), intervalS: 1)
        #expect(read.dropped == measured.dropped)
        #expect(zip(read.samples, measured.samples).allSatisfy { read, expected in
            // The upload's tenths, as the server parsed them from its JSON.
            read.t == expected.t && abs(read.avg - expected.avg) < 1e-9 && abs(read.peak - expected.peak) < 1e-9
                && read.classes == expected.classes
                && zip(read.details!.octaves + [read.details!.fastMax, read.details!.cAvg], expected.details!.octaves + [expected.details!.fastMax, expected.details!.cAvg])
                    .allSatisfy { abs($0 - $1) < 1e-9 }
        })
        #expect(read.samples.count == 12)
        // Written again, it is format 2 and the same seconds.
        #expect(try SampleColumns(decoding: read.encoded(intervalS: 1), intervalS: 1) == read)

        // An API v1 upload: levels of any precision, kept as doubles.
        let doubles = try SampleColumns(decoding: Data(hexDigits: Self.formatOneBlobs.doubles), intervalS: 1)
        #expect(doubles.samples == [
            Sample(t: 0, avg: -41.23456, peak: -20.1), Sample(t: 1, avg: -40.1, peak: -19.987654321), Sample(t: 2, avg: -42, peak: -21.5),
        ])
        // A damaged blob of the first format is still refused by zlib.
        var damaged = Data(hexDigits: Self.formatOneBlobs.measured)
        damaged[damaged.count - 3] ^= 0x5A
        #expect(throws: SampleColumns.Unreadable.self) { try SampleColumns(decoding: damaged, intervalS: 1) }
    }

    @Test func eachColumnIsCodedByThePredictorThatSuitsIt() throws {
        // A band at a steady distance under the A level, new noise each second: as differences
        // from the column's median it costs about its own spread; as differences along the
        // check-in about twice that. A level that wanders costs less as differences.
        var generator = SplitMix64(seed: 11)
        var level = -450
        let samples = (0..<600).map { index -> Sample in
            level += Int(generator.next() % 9) - 4
            // Whole tenths, as an upload's.
            let noisy = { (offset: Int, spread: UInt64) in Double(level + offset + Int(generator.next() % spread)) / 10 }
            return Sample(
                t: Double(index), avg: Double(level) / 10, peak: noisy(80, 61),
                details: LevelDetails(fastMax: noisy(5, 31), cAvg: noisy(20, 61), octaves: (0..<4).map { _ in noisy(-80, 61) }),
                classes: SoundClasses(percent: 50, 50))
        }
        let columns = SampleColumns(samples: samples, dropped: Array(repeating: false, count: 600))
        let blob = columns.encoded(intervalS: 1)
        #expect(try SampleColumns(decoding: blob, intervalS: 1) == columns)
        // avg: log2(9) ≈ 3.2 bits; peak, C and the four bands: log2(61) ≈ 5.9 bits each, fast max
        // log2(31) ≈ 5 bits, the classes nothing: 44 bits, 5.5 bytes, in all. Deflated varints of
        // differences took 8.6 bytes on such seconds.
        #expect(Double(blob.count) / 600 < 6)
    }
}
