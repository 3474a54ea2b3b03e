import Foundation
import HearClearCore
import Testing

@Suite struct LevelTests {
    @Test func energyMeanIsNotTheArithmeticMean() throws {
        // 70 and 80 dB: energies 1e7 and 1e8, mean 5.5e7 → 77.40 dB (the arithmetic mean would say 75).
        let mean = try #require(Level.energyMean([70.0, 80.0]))
        #expect(abs(mean - 77.404) < 0.001)
        #expect(Level.energyMean([Double]()) == nil)
        #expect(abs(try #require(Level.energyMean([63.2, 63.2, 63.2])) - 63.2) < 1e-9)
    }

    @Test func silenceIsFlooredAt160() {
        #expect(Level.level(energy: 0) == -160)
        #expect(Level.level(energy: 1e-30) == -160)
        #expect(Level.level(energy: 1) == 0)
    }

    /// A full-scale recording reads a little over 0 dBFS after the weighting filters; the server
    /// refuses levels over 0, and refused the whole check-in of such a venue.
    @Test func anUploadedLevelIsNeverAboveFullScale() {
        let loud = Sample(t: 0, avg: 0.44, peak: 1.26, details: LevelDetails(fastMax: 1.2, cAvg: 0.3, octaves: [-3.04, 0.2, -1, -2]))
        let uploaded = loud.roundedForUpload
        #expect(uploaded.avg == 0 && uploaded.peak == 0)
        #expect(uploaded.details == LevelDetails(fastMax: 0, cAvg: 0, octaves: [-3, 0, -1, -2]))
        #expect(Sample(t: 0, avg: -20.04, peak: -3.96).roundedForUpload == Sample(t: 0, avg: -20, peak: -4))
    }

    @Test func roundsToATenth() {
        #expect(Level.rounded(72.449) == 72.4)
        #expect(Level.rounded(72.45) == 72.5)
        #expect(Level.rounded(-3.0103) == -3.0)
    }
}

@Suite struct LabelScaleTests {
    @Test(arguments: [
        (60.0, "quiet"), (70.0, "quiet"), (70.4, "quiet"), (70.5, "moderate"), (75.0, "moderate"),
        (75.6, "loud"), (80.0, "loud"), (80.5, "very loud"), (110.0, "very loud"),
    ])
    func standardScaleFollowsSoundPrint(level: Double, label: String) {
        #expect(LabelScale.standard.label(for: level) == label)
    }

    @Test func standardScaleIsValidAndRoundTrips() throws {
        try LabelScale.standard.validate()
        let json = try JSONEncoder().encode(LabelScale.standard)
        #expect(String(decoding: json, as: UTF8.self).contains(#""max_db":null"#))
        #expect(try JSONDecoder().decode(LabelScale.self, from: json) == .standard)
    }

    @Test func invalidScalesAreRefusedWithAReason() {
        let falling = LabelScale(bands: [.init(label: "a", maxDB: 70), .init(label: "b", maxDB: 60), .init(label: "c", maxDB: nil)])
        #expect(throws: LabelScale.InvalidScale.self) { try falling.validate() }
        let openInTheMiddle = LabelScale(bands: [.init(label: "a", maxDB: nil), .init(label: "b", maxDB: 60)])
        #expect(throws: LabelScale.InvalidScale.self) { try openInTheMiddle.validate() }
        #expect(throws: LabelScale.InvalidScale.self) { try LabelScale(bands: []).validate() }
        // Was accepted, and a venue at 89.8 dB(A) was labelled "loud", the band that ends at 80.
        let closedAtTheTop = LabelScale(bands: [.init(label: "quiet", maxDB: 70), .init(label: "loud", maxDB: 80)])
        #expect { try closedAtTheTop.validate() } throws: { "\($0)".contains("the last band of the label scale must leave out max_db") }
    }
}

@Suite struct WireTests {
    @Test func checkInRoundTripsWithItsZoneOffset() throws {
        let json = """
            {"id": "6F9619FF-8B86-D011-B42D-00C04FC964FF", "venue_id": "4b5a-bar", "started_at": "2026-11-20T21:15:00+11:00",
             "interval_s": 1, "weighting": "A", "calibration_db": 112.0,
             "samples": [{"t": 0, "avg": -41.3, "peak": -22.0}], "events": [{"t": 12, "peak": -3.1, "duration_s": 4}]}
            """
        let checkIn = try JSONDecoder().decode(CheckIn.self, from: Data(json.utf8))
        #expect(checkIn.startedAt == Date(timeIntervalSince1970: 1_795_169_700))  // 2026-11-20T10:15:00Z
        #expect(checkIn.events == [LoudEvent(t: 12, peak: -3.1, durationS: 4)])
        let encoded = String(decoding: try JSONEncoder().encode(checkIn), as: UTF8.self)
        #expect(encoded.contains(#""id":"6f9619ff-8b86-d011-b42d-00c04fc964ff""#))
        #expect(try JSONDecoder().decode(CheckIn.self, from: Data(encoded.utf8)) == checkIn)
    }

    @Test func optionalFieldsTakeTheirDefaults() throws {
        let json = #"{"id": "6f9619ff-8b86-d011-b42d-00c04fc964ff", "venue_id": "v", "started_at": "2026-11-20T10:15:00Z", "samples": []}"#
        let checkIn = try JSONDecoder().decode(CheckIn.self, from: Data(json.utf8))
        #expect(checkIn.intervalS == 1 && checkIn.weighting == .a && checkIn.calibrationDB == nil && checkIn.events.isEmpty)
    }

    @Test func aDateWithoutZoneIsRefused() {
        let json = #"{"id": "6f9619ff-8b86-d011-b42d-00c04fc964ff", "venue_id": "v", "started_at": "2026-11-20 10:15", "samples": []}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(CheckIn.self, from: Data(json.utf8)) }
    }

    @Test func nullsAreWrittenNotLeftOut() throws {
        let cell = LoudnessCell(hour: 3, levelDB: nil, label: nil, checkins: 0, samples: 0)
        let json = String(decoding: try JSONEncoder().encode(cell), as: UTF8.self)
        #expect(json.contains(#""level_db":null"#) && json.contains(#""label":null"#) && json.contains(#""confidence":"none""#))
        #expect(!json.contains("weekday"))
    }

    @Test(arguments: [(0, Confidence.none), (1, .low), (2, .medium), (4, .medium), (5, .high), (500, .high)])
    func confidenceFollowsTheCheckInCount(checkins: Int, confidence: Confidence) {
        #expect(Confidence(checkins: checkins) == confidence)
    }

    @Test func weekdaysStartOnMonday() {
        #expect(Weekday(index: 0) == .monday && Weekday.sunday.index == 6)
    }
}
