import Foundation
import HearClearAnalysis
import HearClearCore
import TestCluster
import Testing

@testable import HearClearServer

/// Each store on a temporary database: the analysis as stored, and the cells kept right.
@Suite struct StoreTests {
    let settings = ServerSettings()

    func makeVenue(_ database: TemporaryDatabase, id: String = "venue-1", timezone: String = "UTC", device: UUID) async throws {
        _ = try await database.repository.saveVenue(
            id: id, VenueUpsert(name: "Venue \(id)", latitude: 0, longitude: 0, timezone: timezone), by: device, at: Date())
    }

    func store(_ database: TemporaryDatabase, _ checkIn: CheckIn, device: UUID) async throws -> StoredCheckIn {
        let outcome = try await database.repository.storeCheckIn(
            checkIn, contentHash: CheckInController.contentHash(checkIn), by: device, at: Date())
        switch outcome {
        case .created(let stored), .replayed(let stored): return stored
        default: Issue.record("unexpected outcome \(outcome)"); throw CancellationError()
        }
    }

    @Test(arguments: StoreKind.allCases) func aLoudCheckInAmongQuietOnesIsAnOutlierUntilTheVenueChanges(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        try await makeVenue(database, device: device)
        // Five check-ins at 60 dB(A) (−50 dBFS + 110), then one at 80.
        for week in 1...5 {
            #expect(try await store(database, makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: week), level: -50), device: device).status == .accepted)
        }
        let loud = makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 6), level: -30)
        let stored = try await store(database, loud, device: device)
        #expect(stored.status == .outlier)
        #expect(abs(try #require(stored.levelDB) - 80) < 0.1)
        let overall = try #require(try await database.repository.venue(id: "venue-1")?.aggregate)
        #expect(overall.checkins == 5)
        #expect(abs(try #require(overall.levelDB) - 60) < 0.1)

        // The venue gets louder: six more check-ins at 80 dB. The first loud one is usable again.
        for week in 7...12 {
            _ = try await store(database, makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: week), level: -30), device: device)
        }
        #expect(try await database.status(of: loud.id) == .accepted)
        #expect(try await database.repository.verify() == [])
    }

    /// Was: a microphone muted for a whole check-in (digital silence, −160 dBFS a second) counted
    /// as a venue's −50 dB(A) hour, the quietest it ever had, and one muted for part of a
    /// check-in pulled its level down by tens of dB.
    @Test(arguments: StoreKind.allCases) func silenceFromAMutedMicrophoneIsNotCountedAsAQuietVenue(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        try await makeVenue(database, device: device)
        let muted = try await store(database, makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 1), level: -159.5), device: device)
        #expect(muted.status == .tooShort && muted.levelDB == nil && muted.droppedSamples == 60, "\(muted)")
        #expect(try await database.repository.venue(id: "venue-1")?.aggregate?.levelDB == nil)
        // Muted for its last 20 seconds: the 40 before count, at their own 60 dB(A).
        var partly = makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 2), level: -50)
        for index in 40..<60 { partly.samples[index] = Sample(t: Double(index), avg: -160, peak: -160) }
        let stored = try await store(database, partly, device: device)
        #expect(stored.status == .accepted && stored.droppedSamples == 20, "\(stored)")
        #expect(abs(try #require(stored.levelDB) - 60) < 0.1)
        #expect(try await database.repository.verify() == [])
    }

    @Test(arguments: StoreKind.allCases) func theOutlierRuleFallsBackToTheSameHourOnOtherWeekdays(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        try await makeVenue(database, device: device)
        // Five quiet check-ins at 20h spread over Monday to Friday; the loud one on Saturday at 20h.
        for day in 16...20 {
            _ = try await store(database, makeCheckIn(venue: "venue-1", start: "2026-11-\(day)T20:00:00Z", level: -50), device: device)
        }
        let loud = try await store(database, makeCheckIn(venue: "venue-1", start: "2026-11-21T20:00:00Z", level: -30), device: device)
        #expect(loud.status == .outlier)
        // At another hour there is nothing to compare with: no decision, accepted.
        let alone = try await store(database, makeCheckIn(venue: "venue-1", start: "2026-11-21T10:00:00Z", level: -30), device: device)
        #expect(alone.status == .accepted)
    }

    @Test(arguments: StoreKind.allCases) func aShortCheckInIsStoredButNotCounted(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        try await makeVenue(database, device: device)
        let stored = try await store(database, makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 1), seconds: 10), device: device)
        #expect(stored.status == .tooShort)
        #expect(try await database.storedSamples().count == 10)
        #expect(try await database.repository.loudness(venueID: "venue-1") == [])
    }

    @Test(arguments: StoreKind.allCases) func spikesAreFlaggedAndKeptOutOfTheLevel(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        try await makeVenue(database, device: device)
        var checkIn = makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 1), seconds: 60, level: -50)
        checkIn.samples[30] = Sample(t: 30, avg: -5, peak: -1)
        let stored = try await store(database, checkIn, device: device)
        #expect(stored.droppedSamples == 1 && stored.samples == 60)
        #expect(abs(try #require(stored.levelDB) - 60) < 0.1)
        #expect(try await database.storedSamples().map(\.dropped) == (0..<60).map { $0 == 30 })
    }

    @Test(arguments: StoreKind.allCases) func theMissingCalibrationIsTheConfiguredDefaultAndRecorded(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        try await makeVenue(database, device: device)
        let stored = try await store(database, makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 1), level: -50, calibration: nil), device: device)
        #expect(abs(try #require(stored.levelDB) - (-50 + settings.defaultCalibrationDB)) < 0.1)
        let source = try await database.string("SELECT calibration_source FROM checkin")
        #expect(source == "default")
    }

    @Test(arguments: StoreKind.allCases) func aCheckInAcrossLocalMidnightSplitsAndCountsOnceOverall(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        try await makeVenue(database, timezone: "Australia/Sydney", device: device)
        // Monday 23:58 in Sydney (UTC+11) is Monday 12:58 UTC.
        _ = try await store(database, makeCheckIn(venue: "venue-1", start: "2026-11-16T12:58:00Z", seconds: 300), device: device)
        let aggregates = try #require(try await database.repository.loudness(venueID: "venue-1"))
        func find(_ weekday: Int, _ hour: Int) -> LoudnessAggregate? { aggregates.first { $0.weekday == weekday && $0.hour == hour } }
        #expect(find(0, 23)?.samples == 120 && find(0, 23)?.checkins == 1)
        #expect(find(1, 0)?.samples == 180 && find(1, 0)?.checkins == 1)
        #expect(find(7, 24)?.samples == 300 && find(7, 24)?.checkins == 1)
        #expect(find(0, 24)?.checkins == 1 && find(1, 24)?.checkins == 1)
        // 2 weekday-hours, their 2 weekdays, their 2 hours and the overall span: nothing else.
        #expect(aggregates.count == 7)
        #expect(try await database.repository.verify() == [])
    }

    /// A level is an energy mean over time. Was: over intervals, so ten minutes at 80 dB(A) in
    /// sixty 10-second intervals weighed a tenth of ten minutes at 60 in 600 one-second ones, and
    /// the venue read 70.0 dB(A) instead of 77.0; the spread and the shares counted the same way.
    @Test(arguments: StoreKind.allCases) func aCheckInWeighsByItsSecondsNotItsIntervals(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        try await makeVenue(database, device: device)
        var long = makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 1), seconds: 60, level: -30)
        long.intervalS = 10
        long.samples = long.samples.enumerated().map { index, sample in Sample(t: Double(index) * 10, avg: -30, peak: -18) }
        let stored = try await store(database, long, device: device)
        #expect(stored.status == .accepted && stored.samples == 60)
        _ = try await store(database, makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 2), seconds: 600, level: -50), device: device)
        let aggregates = try #require(try await database.repository.loudness(venueID: "venue-1"))
        let overall = try #require(aggregates.first { $0.weekday == 7 && $0.hour == 24 })
        #expect(overall.samples == 1200 && overall.checkins == 2, "\(overall)")
        // 10·log10((10^8 + 10^6) / 2) = 77.03
        #expect(abs(try #require(overall.levelDB) - 77.03) < 0.01, "\(overall)")
        // Half of the seconds at 80, half around 60: the level exceeded half the time is between them.
        #expect(try await database.repository.verify() == [])
    }

    /// A check-in that stops counting leaves the weekday, hour and overall cells by having its
    /// weekday-hour's old sums taken away, within a bound on rounding kept with each cell; where
    /// taking it away would leave more, the cell is added up from its parts. Both kept right.
    @Test(arguments: StoreKind.allCases) func cellsFollowACheckInThatStopsCountingWithinTheirRounding(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        try await makeVenue(database, device: device)
        func overall() async throws -> LoudnessAggregate {
            try #require(try await database.repository.loudness(venueID: "venue-1")?.first { $0.cell == LocalHour(weekday: 7, hour: 24) })
        }
        // 10 dB on a Tuesday; then 130 dB on a Monday, and five at 10 dB in the same weekday-hour
        // make it an outlier: its energy is 10^12 times theirs, and taking it away from the overall
        // cell would leave rounding larger than they are.
        _ = try await store(database, makeCheckIn(venue: "venue-1", start: "2026-11-10T10:00:00Z", level: -90, calibration: 100), device: device)
        let loud = makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 6), level: -10, calibration: 140)
        _ = try await store(database, loud, device: device)
        for week in 1...5 {
            _ = try await store(database, makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: week), level: -90, calibration: 100), device: device)
        }
        #expect(try await database.status(of: loud.id) == .outlier)
        #expect(try await database.repository.verify() == [])
        let quiet = try await overall()
        #expect(quiet.checkins == 6 && quiet.rounding == 0)
        #expect(abs(try #require(quiet.levelDB) - 10) < 0.1)

        // 40 dB on Wednesday at noon, then five at 10 dB there: taken away, it leaves a bound of
        // its rounding on the cells that held it, stored and read back.
        let louder = makeCheckIn(venue: "venue-1", start: "2026-11-11T12:00:00Z", level: -60, calibration: 100)
        _ = try await store(database, louder, device: device)
        for week in 1...5 {
            let start = Timestamp.format(Timestamp.parse("2026-11-11T12:00:00Z")!.addingTimeInterval(Double(-week) * 7 * 86_400))
            _ = try await store(database, makeCheckIn(venue: "venue-1", start: start, level: -90, calibration: 100), device: device)
        }
        #expect(try await database.status(of: louder.id) == .outlier)
        let followed = try await overall()
        #expect(followed.checkins == 11 && followed.rounding > 0 && followed.rounding <= LoudnessAggregate.roundingLimit)
        #expect(try await database.repository.verify() == [])
    }

    @Test(arguments: StoreKind.allCases) func theSameCheckInStoredTwiceIsStoredOnce(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        try await makeVenue(database, device: device)
        let checkIn = makeCheckIn(venue: "venue-1", start: mondayEvening(weeksBefore: 1))
        let hash = CheckInController.contentHash(checkIn)
        let first = try await database.repository.storeCheckIn(checkIn, contentHash: hash, by: device, at: Date())
        let second = try await database.repository.storeCheckIn(checkIn, contentHash: hash, by: device, at: Date())
        guard case .created(let stored) = first else { Issue.record("first store: \(first)"); return }
        #expect(second == .replayed(stored))
        #expect(try await database.count("checkin") == 1)
        #expect(try await database.storedSamples().count == 60)
        var changed = checkIn
        changed.samples[0].avg -= 1
        #expect(try await database.repository.storeCheckIn(changed, contentHash: CheckInController.contentHash(changed), by: device, at: Date()) == .conflict)
        let otherDevice = try await database.registerDevice()
        #expect(try await database.repository.storeCheckIn(checkIn, contentHash: hash, by: otherDevice, at: Date()) == .conflict)
    }

    /// Was: every upload rewrote its device's row, so on PostgreSQL one device's uploads over
    /// several connections waited on that row one after the other (seen in make bench).
    @Test(arguments: StoreKind.allCases) func aDevicesLastSeenIsKeptToTheMinute(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let registered = Date(timeIntervalSince1970: 1_790_000_000)
        let device = try await database.repository.registerDevice(
            DeviceRegistration(model: "Test Mic", platform: "linux"), tokenHash: DeviceToken.hash(UUID().uuidString), at: registered)
        func lastSeen() async throws -> Date? { try await database.repository.devices().first { $0.id == device }?.lastSeen }
        for (offset, seen) in [(30.0, 0.0), (59.0, 0.0), (61.0, 61.0), (100.0, 61.0), (125.0, 125.0)] {
            _ = try await database.repository.saveVenue(
                id: "venue-1", VenueUpsert(name: "V", latitude: 0, longitude: 0, timezone: "UTC"), by: device, at: registered.addingTimeInterval(offset))
            #expect(try await lastSeen()?.timeIntervalSince(registered) == seen, "at +\(offset) s")
        }
    }

    @Test(arguments: StoreKind.allCases) func aCheckInForAnUnknownVenueLeavesNoRows(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        let outcome = try await database.repository.storeCheckIn(
            makeCheckIn(venue: "nowhere", start: mondayEvening(weeksBefore: 1)), contentHash: Data([1]), by: device, at: Date())
        #expect(outcome == .unknownVenue)
        #expect(try await database.count("checkin") == 0)
        #expect(try await database.storedSamples().count == 0)
    }

    @Test(arguments: StoreKind.allCases) func changingTheTimeZoneMovesTheCheckInsToTheirNewLocalHours(kind: StoreKind) async throws {
        let database = try await TemporaryDatabase(kind)
        let device = try await database.registerDevice()
        try await makeVenue(database, device: device)
        _ = try await store(database, makeCheckIn(venue: "venue-1", start: "2026-11-16T20:00:00Z"), device: device)
        try await makeVenue(database, timezone: "Australia/Sydney", device: device)
        let aggregates = try #require(try await database.repository.loudness(venueID: "venue-1"))
        // Monday 20:00 UTC is Tuesday 07:00 in Sydney.
        #expect(aggregates.contains { $0.weekday == 1 && $0.hour == 7 && $0.checkins == 1 })
        #expect(!aggregates.contains { $0.weekday == 0 && $0.hour == 20 })
        #expect(try await database.repository.verify() == [])
    }
}
