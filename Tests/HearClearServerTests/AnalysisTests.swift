import Foundation
import HearClearCore
import Testing

@testable import HearClearServer

@Suite struct AnalysisTests {
    @Test func aSpikeIsDroppedAndItsNeighboursKept() {
        var levels = (0..<30).map { -50 + ($0.isMultiple(of: 2) ? 0.5 : -0.5) }
        levels[12] = -20
        let spikes = Analysis.spikes(in: levels)
        #expect(spikes.enumerated().filter(\.element).map(\.offset) == [12])
    }

    @Test func smallWobblesAreNotSpikes() {
        // 5 dB from the window median: more than 3 × 1.4826 × MAD, but under the 6 dB floor.
        var levels = Array(repeating: -50.0, count: 20)
        levels[7] = -45
        #expect(!Analysis.spikes(in: levels).contains(true))
    }

    @Test func spikesAtTheEdgesAreFoundInShortenedWindows() {
        var levels = Array(repeating: -50.0, count: 10)
        levels[0] = -10
        levels[9] = -10
        #expect(Analysis.spikes(in: levels) == [true] + Array(repeating: false, count: 8) + [true])
    }

    @Test func outlierRuleNeedsFiveReferences() {
        #expect(Analysis.isOutlier(80, among: [60, 60, 60, 60]) == nil)
        #expect(Analysis.isOutlier(80, among: [60, 60, 60, 60, 60]) == true)
        #expect(Analysis.isOutlier(65, among: [60, 60, 60, 60, 60]) == false)
        // A wide spread widens the band: MAD 5 → 3 × 1.4826 × 5 ≈ 22 dB.
        #expect(Analysis.isOutlier(80, among: [50, 55, 60, 65, 70]) == false)
    }

    @Test func sydneySundayEveningUTCIsMondayMorningLocally() throws {
        let clock = try #require(VenueClock(timeZoneIdentifier: "Australia/Sydney"))
        // 2026-11-15 is a Sunday; Sydney is on daylight saving time (UTC+11).
        let instant = try #require(Timestamp.parse("2026-11-15T23:30:00Z")).timeIntervalSince1970
        #expect(clock.localHour(at: instant) == LocalHour(weekday: 0, hour: 10))
        // In June Sydney is UTC+10.
        let winter = try #require(Timestamp.parse("2026-06-14T23:30:00Z")).timeIntervalSince1970
        #expect(clock.localHour(at: winter) == LocalHour(weekday: 0, hour: 9))
    }

    @Test func aCheckInAcrossADaylightSavingChangeFollowsTheLocalClock() throws {
        // Sydney: clocks went forward from 02:00 to 03:00 on Sunday 2026-10-04 (15:59:59Z on the 3rd is 01:59:59 local).
        let clock = try #require(VenueClock(timeZoneIdentifier: "Australia/Sydney"))
        let start = try #require(Timestamp.parse("2026-10-03T15:30:00Z")).timeIntervalSince1970
        let hours = clock.localHours(at: [start, start + 1799, start + 1800, start + 3600])
        #expect(hours == [
            LocalHour(weekday: 6, hour: 1), LocalHour(weekday: 6, hour: 1),
            LocalHour(weekday: 6, hour: 3), LocalHour(weekday: 6, hour: 3),
        ])
    }

    @Test func aCheckInAcrossMidnightCountsInBothHours() throws {
        let clock = try #require(VenueClock(timeZoneIdentifier: "UTC"))
        // Monday 23:58 for 5 minutes: 120 samples on Monday 23h, 180 on Tuesday 0h.
        let checkIn = makeCheckIn(venue: "v", start: "2026-11-16T23:58:00Z", seconds: 300)
        let analysis = CheckInAnalysis(checkIn: checkIn, calibrationDB: 110, clock: clock)
        #expect(analysis.hours[LocalHour(weekday: 0, hour: 23)]?.samples == 120)
        #expect(analysis.hours[LocalHour(weekday: 1, hour: 0)]?.samples == 180)
        #expect(analysis.homeHour == LocalHour(weekday: 1, hour: 0))
        #expect(abs(try #require(analysis.levelDB) - 60.0) < 0.1)
    }

    @Test func aCheckInWithFewerThanFifteenKeptSamplesIsTooShort() throws {
        let clock = try #require(VenueClock(timeZoneIdentifier: "UTC"))
        #expect(CheckInAnalysis(checkIn: makeCheckIn(venue: "v", start: "2026-11-16T20:00:00Z", seconds: 14), calibrationDB: 110, clock: clock).isTooShort)
        #expect(!CheckInAnalysis(checkIn: makeCheckIn(venue: "v", start: "2026-11-16T20:00:00Z", seconds: 15), calibrationDB: 110, clock: clock).isTooShort)
    }
}
