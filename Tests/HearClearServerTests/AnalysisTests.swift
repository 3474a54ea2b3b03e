import Foundation
@testable import HearClearAnalysis
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

    /// The spike filter's median of a whole window is a selection network; it must be the middle
    /// value whatever the order and whatever the ties.
    @Test func theMedianOfSevenIsTheMiddleOfEveryOrderAndTie() {
        func permutations(_ values: [Double]) -> [[Double]] {
            guard values.count > 1 else { return [values] }
            return values.indices.flatMap { index in
                permutations(Array(values[..<index] + values[(index + 1)...])).map { [values[index]] + $0 }
            }
        }
        var windows = permutations([-60, -52.5, -50, -49.9, -41, -30, -12])
        // Every window of seven values from three, which has every pattern of ties.
        for code in 0..<2187 {
            windows.append((0..<7).map { [-50, -40, -30][code / Int(pow(3, Double($0))) % 3] })
        }
        let wrong = windows.filter { window in
            Analysis.medianOfSeven(window[0], window[1], window[2], window[3], window[4], window[5], window[6]) != window.sorted()[3]
        }
        #expect(windows.count == 5040 + 2187 && wrong.isEmpty, "\(wrong.prefix(3))")
    }

    /// Silence is dropped first, and the spikes are found among the seconds that hold sound: the
    /// seconds beside a muted stretch are not spikes of it.
    @Test func silenceIsDroppedAndSpikesAreFoundAmongTheRest() {
        var levels = Array(repeating: -40.0, count: 20)
        levels[3] = -20
        for index in 8...12 { levels[index] = -160 }
        levels[13] = -120.5
        #expect(Analysis.dropped(in: levels).enumerated().filter(\.element).map(\.offset) == [3, 8, 9, 10, 11, 12, 13])
        // −120 itself is the quietest level that may be sound.
        #expect(Level.isSilence(-120.01) && !Level.isSilence(-120))
        #expect(Analysis.dropped(in: Array(repeating: -120, count: 10)) == Array(repeating: false, count: 10))
        // Without silence, the spike filter alone.
        levels = Array(repeating: -40.0, count: 20)
        levels[3] = -20
        #expect(Analysis.dropped(in: levels) == Analysis.spikes(in: levels))
    }

    @Test func spikesAtTheEdgesAreFoundInShortenedWindows() {
        var levels = Array(repeating: -50.0, count: 10)
        levels[0] = -10
        levels[9] = -10
        #expect(Analysis.spikes(in: levels) == [true] + Array(repeating: false, count: 8) + [true])
    }

    /// The verdict on a level among others at the same home weekday.
    func verdict(_ level: Double, among levels: [Double], weekday: Int = 0) -> OutlierVerdict {
        Analysis.outlierVerdict(level: level, weekday: 0, among: levels.map { ($0, weekday) })
    }

    @Test func outlierRuleNeedsFiveReferences() {
        #expect(verdict(80, among: [60, 60, 60, 60]).scope == .tooFewToDecide)
        #expect(!verdict(80, among: [60, 60, 60, 60]).isOutlier)
        #expect(verdict(80, among: [60, 60, 60, 60, 60]).isOutlier)
        #expect(!verdict(65, among: [60, 60, 60, 60, 60]).isOutlier)
        // A wide spread widens the band: MAD 5 → 3 × 1.4826 × 5 ≈ 22 dB.
        let wide = verdict(80, among: [50, 55, 60, 65, 70])
        #expect(!wide.isOutlier)
        #expect(abs((wide.allowedDistance ?? 0) - 22.239) < 0.001)
        #expect(wide.median == 60)
    }

    @Test func theVerdictFallsBackToTheHourWhenTheWeekdayHasTooFew() {
        // Five at the same hour on another weekday, one on this weekday.
        let others = Array(repeating: (level: 60.0, weekday: 2), count: 5) + [(level: 80.0, weekday: 0)]
        let fallback = Analysis.outlierVerdict(level: 80, weekday: 0, among: others)
        #expect(fallback.scope == .sameHourAnyWeekday)
        #expect(fallback.references == 6)
        #expect(fallback.isOutlier)
        let sameDay = Analysis.outlierVerdict(level: 80, weekday: 2, among: others)
        #expect(sameDay.scope == .sameWeekdayAndHour)
        #expect(sameDay.references == 5)
    }

    @Test func statusesFollowLengthThenMarkThenVerdict() {
        func candidate(_ key: Int, level: Double, kept: Int = 60, marked: Bool = false, banned: Bool = false, status: CheckInStatus = .accepted) -> StatusCandidate<Int> {
            StatusCandidate(key: key, keptSamples: kept, levelDB: level, home: LocalHour(weekday: 0, hour: 20), status: status, markedOutlier: marked, deviceBanned: banned)
        }
        let quiet = (0..<5).map { candidate($0, level: 60) }
        // A loud one is an outlier; a marked one is one whatever its level; a short one is too short.
        let changes = Analysis.statusChanges(among: quiet + [candidate(5, level: 80), candidate(6, level: 60, marked: true), candidate(7, level: 60, kept: 14)])
        #expect(changes.map(\.key).sorted() == [5, 6, 7])
        #expect(changes.first { $0.key == 7 }?.to == .tooShort)
        #expect(changes.first { $0.key == 6 }?.to == .outlier)
        // Banned devices' check-ins are no references: with one quiet one banned, too few remain to decide.
        let banned = Analysis.statusChanges(among: quiet.dropLast() + [candidate(4, level: 60, banned: true), candidate(5, level: 80)])
        #expect(banned.isEmpty)
        // A check-in stops counting: the cells are summed again rather than subtracted from.
        let stops = StatusChange(key: 1, from: .accepted, to: .outlier, deviceBanned: false)
        #expect(Analysis.cellUpdate(after: [stops]) == .sumAgain([stops]))
        // A new check-in's sums are known, not read; another that starts to count is read.
        let hours = [LocalHour(weekday: 0, hour: 20): CellSums(samples: 60, energy: 1e6)]
        let joined = JoinedCheckIn(key: 9, status: .accepted, hours: hours)
        let known = [HourContribution(checkIn: 9, hour: LocalHour(weekday: 0, hour: 20), sums: hours.first!.value, status: .accepted, deviceBanned: false)]
        #expect(Analysis.cellUpdate(after: [], joined: [joined]) == .add(read: [], known: known))
        #expect(
            Analysis.cellUpdate(after: [StatusChange(key: 3, from: .outlier, to: .accepted, deviceBanned: false)], joined: [joined]) == .add(read: [3], known: known))
        // Joined as an outlier: nothing to add.
        #expect(Analysis.cellUpdate(after: [StatusChange(key: 9, from: .accepted, to: .outlier, deviceBanned: false)], joined: [joined]) == .add(read: [], known: []))
        // Several joined together (a group commit): each one's sums known; one that a later one
        // made an outlier adds nothing, and one an earlier one had counted makes the cells be summed again.
        let second = JoinedCheckIn(key: 10, status: .accepted, hours: hours)
        let secondKnown = [HourContribution(checkIn: 10, hour: LocalHour(weekday: 0, hour: 20), sums: hours.first!.value, status: .accepted, deviceBanned: false)]
        #expect(Analysis.cellUpdate(after: [], joined: [joined, second]) == .add(read: [], known: known + secondKnown))
        #expect(
            Analysis.cellUpdate(after: [StatusChange(key: 10, from: .accepted, to: .outlier, deviceBanned: false)], joined: [joined, second])
                == .add(read: [], known: known))
        let demoted = StatusChange(key: 3, from: .accepted, to: .outlier, deviceBanned: false)
        #expect(
            Analysis.cellUpdate(after: [demoted], joined: [joined, second])
                == .sumAgain([
                    demoted, StatusChange(key: 9, from: .tooShort, to: .accepted, deviceBanned: false),
                    StatusChange(key: 10, from: .tooShort, to: .accepted, deviceBanned: false),
                ]))
    }

    @Test func summingAgainTouchesOnlyTheCellsOfTheCheckInsThatChanged() throws {
        func contribution(_ key: Int, _ weekday: Int, _ hour: Int, _ status: CheckInStatus) -> HourContribution<Int> {
            HourContribution(
                checkIn: key, hour: LocalHour(weekday: weekday, hour: hour), sums: CellSums(samples: 60, energy: 1e6 * Double(key)),
                status: status, deviceBanned: false)
        }
        let monday = LocalHour(weekday: 0, hour: 20), tuesday = LocalHour(weekday: 1, hour: 9)
        let everyDay = LoudnessAggregate.everyWeekday, wholeDay = LoudnessAggregate.everyHour
        // 1 and 2 on Monday at 20:00, 3 on Tuesday at 9:00; 2 has just become an outlier.
        let before = [contribution(1, 0, 20, .accepted), contribution(2, 0, 20, .accepted), contribution(3, 1, 9, .accepted)]
        let stored = Array(Analysis.cells(from: before).values)
        let contributions = before.map { $0.checkIn == 2 ? contribution(2, 0, 20, .outlier) : $0 }
        let all = Analysis.cells(from: contributions)
        let twoStops = [StatusChange(key: 2, from: .accepted, to: .outlier, deviceBanned: false)]
        // What the store reads: the check-ins in Monday 20:00, and the four cells that hold them.
        #expect(Analysis.storedCells(shifting: [monday]).cells == Analysis.cells(covering: monday).sorted())
        // Where a cell must be added up from its parts: Monday's, 20:00's and each day's cells,
        // looked up one by one (PostgreSQL) as Monday's 25 cells, then 20:00's and the whole day's
        // on the other days and every day.
        #expect(Analysis.storedCells(summingAgain: [monday]) == CellSelection(weekdays: [0], hours: [20, wholeDay], match: .either))
        let mondayCells = (0...wholeDay).map { LocalHour(weekday: 0, hour: $0) }
        let otherDays = (1...everyDay).flatMap { [LocalHour(weekday: $0, hour: 20), LocalHour(weekday: $0, hour: wholeDay)] }
        #expect(Analysis.storedCells(summingAgain: [monday]).cells == mondayCells + otherDays)
        #expect(Analysis.storedCells(adding: [monday, tuesday]).cells == [LocalHour(weekday: 0, hour: 9), monday, LocalHour(weekday: 1, hour: 9), LocalHour(weekday: 1, hour: 20)])
        let summed = try #require(
            Analysis.cellWrites(
                summingAgain: twoStops, from: contributions.filter { $0.hour == monday },
                stored: stored.filter { Analysis.storedCells(shifting: [monday]).contains($0.cell) }))
        #expect(summed.written.map(\.cell) == Analysis.cells(covering: monday).sorted())
        for cell in summed.written { #expect(cell.matches(all[cell.cell]!)) }
        #expect(summed.deleted == .cells([]))
        // 3 stops counting too: the cells only it was in are deleted, the overall one follows.
        let without3 = contributions.map { $0.checkIn == 3 ? contribution(3, 1, 9, .outlier) : $0 }
        let alone = try #require(
            Analysis.cellWrites(
                summingAgain: [StatusChange(key: 3, from: .accepted, to: .outlier, deviceBanned: false)], from: without3.filter { $0.hour == tuesday },
                stored: applying(summed, to: stored).filter { Analysis.storedCells(shifting: [tuesday]).contains($0.cell) }))
        #expect(alone.deleted == .cells([tuesday, LocalHour(weekday: 1, hour: wholeDay), LocalHour(weekday: everyDay, hour: 9)]))
        #expect(alone.written.map(\.cell) == [LocalHour(weekday: everyDay, hour: wholeDay)] && alone.written.first?.checkins == 1)
        // Nil: every cell, as from scratch, after deleting every stored one.
        #expect(Analysis.cellWrites(summingAllFrom: contributions) == CellWrites(deleting: .every, writing: Array(all.values)))
    }

    /// Taking a loud check-in's energy out of the overall cell would leave nothing of a quiet
    /// one's beside it (10^17 + 3 − 10^17 is 0 or 16 in floating point): the cell is added up from
    /// its parts instead, as a store does when `cellWrites(summingAgain:from:stored:)` says so.
    @Test func aCellWhoseEnergyWouldDrownInRoundingIsAddedUpFromItsParts() throws {
        let monday = LocalHour(weekday: 0, hour: 20), tuesday = LocalHour(weekday: 1, hour: 9)
        let before = [
            HourContribution(checkIn: 1, hour: monday, sums: CellSums(samples: 60, energy: 1e17), status: .accepted, deviceBanned: false),
            HourContribution(checkIn: 2, hour: tuesday, sums: CellSums(samples: 60, energy: 3), status: .accepted, deviceBanned: false),
        ]
        let stored = Array(Analysis.cells(from: before).values)
        var after = before
        after[0].status = .outlier
        let changes = [StatusChange(key: 1, from: .accepted, to: .outlier, deviceBanned: false)]
        let inMonday = after.filter { $0.hour == monday }
        #expect(Analysis.cellWrites(summingAgain: changes, from: inMonday, stored: stored.filter { Analysis.storedCells(shifting: [monday]).contains($0.cell) }) == nil)
        let writes = Analysis.cellWrites(
            summingAgain: changes, from: inMonday, storedWithParts: stored.filter { Analysis.storedCells(summingAgain: [monday]).contains($0.cell) })
        let overall = try #require(writes.written.first { $0.cell == LocalHour(weekday: LoudnessAggregate.everyWeekday, hour: LoudnessAggregate.everyHour) })
        #expect(overall.energy == 3 && overall.samples == 60 && overall.checkins == 1 && overall.rounding == 0)
    }

    /// A venue's 60 check-ins of one to three hours each at 30 to 120 dB, statuses
    /// changing back and forth at random: after each change, the cells as summed again where the
    /// check-ins were — shifted where rounding allows, from their parts where not, as a store does —
    /// equal the cells from scratch: check-in counts exactly, a check-in across two hours of one day once.
    @Test func summingAgainWhereCheckInsWereEqualsSummingFromScratch() {
        var random = SplitMix64(seed: 24)
        var contributions: [HourContribution<Int>] = []
        for key in 0..<60 {
            let start = LocalHour(weekday: Int(random.next() % 7), hour: Int(random.next() % 24)), banned = random.next() % 10 == 0
            // Up to three hours, across midnight into the next weekday.
            for offset in 0..<Int(1 + random.next() % 3) {
                let hour = (start.hour + offset) % 24, weekday = (start.weekday + (start.hour + offset) / 24) % 7
                contributions.append(
                    HourContribution(
                        checkIn: key, hour: LocalHour(weekday: weekday, hour: hour),
                        sums: CellSums(
                            samples: 60, energy: 60 * pow(10, random.uniform(3, 12)),
                            spread: LevelSpread(levels: LevelHistogram(counts: [Int(random.next() % 100): 60]), fastMaxima: .empty)),
                        status: .accepted, deviceBanned: banned))
            }
        }
        var stored = Array(Analysis.cells(from: contributions).values)
        let statuses: [CheckInStatus] = [.accepted, .outlier, .tooShort]
        var shifted = 0, fromParts = 0
        for _ in 0..<200 {
            let keys = Set((0..<Int(1 + random.next() % 3)).map { _ in Int(random.next() % 60) })
            var changes: [StatusChange<Int>] = []
            for key in keys {
                let hours = contributions.indices.filter { contributions[$0].checkIn == key }
                let from = contributions[hours[0]].status, to = statuses[Int(random.next() % 3)]
                guard from != to else { continue }
                for index in hours { contributions[index].status = to }
                changes.append(StatusChange(key: key, from: from, to: to, deviceBanned: contributions[hours[0]].deviceBanned))
            }
            let hourCells = Set(contributions.filter { keys.contains($0.checkIn) }.map(\.hour))
            let inCells = contributions.filter { hourCells.contains($0.hour) }
            if let writes = Analysis.cellWrites(
                summingAgain: changes, from: inCells, stored: stored.filter { Analysis.storedCells(shifting: hourCells).contains($0.cell) })
            {
                shifted += 1
                stored = applying(writes, to: stored)
            } else {
                fromParts += 1
                stored = applying(
                    Analysis.cellWrites(
                        summingAgain: changes, from: inCells, storedWithParts: stored.filter { Analysis.storedCells(summingAgain: hourCells).contains($0.cell) }),
                    to: stored)
            }
            let scratch = Analysis.cells(from: contributions)
            #expect(stored.count == scratch.count)
            for cell in stored {
                #expect(scratch[cell.cell].map(cell.matches) == true, "\(cell.cell)")
                #expect(cell.rounding <= LoudnessAggregate.roundingLimit)
            }
        }
        // Both ways were taken.
        #expect(shifted > 0 && fromParts > 0, "\(shifted) shifted, \(fromParts) from parts")
    }

    @Test func addingToStoredCellsSumsOnlyTheCellsTouched() {
        let monday = LocalHour(weekday: 0, hour: 20)
        let stored = [
            LoudnessAggregate(weekday: 0, hour: 20, checkins: 2, samples: 120, energy: 2e6),
            LoudnessAggregate(weekday: 3, hour: 8, checkins: 1, samples: 60, energy: 5e5),
        ]
        let additions = Analysis.cells(from: [
            HourContribution(checkIn: 9, hour: monday, sums: CellSums(samples: 60, energy: 1e6), status: .accepted, deviceBanned: false)
        ])
        // What the store reads: of every cell a venue can have, the four the check-in adds to.
        let everyCell = (0...LoudnessAggregate.everyWeekday).flatMap { weekday in (0...LoudnessAggregate.everyHour).map { LocalHour(weekday: weekday, hour: $0) } }
        #expect(Set(everyCell.filter(Analysis.storedCells(adding: additions.keys).contains)) == Set(additions.keys))
        let writes = Analysis.cellWrites(adding: additions, to: stored)
        // The cells the new check-in covers, each with it added where one was stored; nothing else.
        #expect(writes.deleted == CellWrites.Deletion.none)
        #expect(writes.written.map(\.cell) == Analysis.cells(covering: monday).sorted())
        #expect(writes.written.first { $0.cell == monday } == LoudnessAggregate(weekday: 0, hour: 20, checkins: 3, samples: 180, energy: 3e6))
        #expect(writes.written.filter { $0.cell != monday }.allSatisfy { $0.checkins == 1 && $0.samples == 60 })
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

/// A venue's cells as a store holds them after `writes`.
private func applying(_ writes: CellWrites, to stored: [LoudnessAggregate]) -> [LoudnessAggregate] {
    var cells = Dictionary(uniqueKeysWithValues: stored.map { ($0.cell, $0) })
    switch writes.deleted {
    case .none: break
    case .every: cells = [:]
    case .cells(let deleted): for cell in deleted { cells[cell] = nil }
    }
    for cell in writes.written { cells[cell.cell] = cell }
    return Array(cells.values)
}
