import HearClearCore

/// One row of a check-in's per-hour sums, with what decides whether it counts: what the stores
/// fetch to build or check a venue's cells.
public struct HourContribution<Key: Hashable & Sendable>: Equatable, Sendable {
    public var checkIn: Key
    public var hour: LocalHour
    public var sums: CellSums
    public var status: CheckInStatus
    public var deviceBanned: Bool

    public init(checkIn: Key, hour: LocalHour, sums: CellSums, status: CheckInStatus, deviceBanned: Bool) {
        self.checkIn = checkIn
        self.hour = hour
        self.sums = sums
        self.status = status
        self.deviceBanned = deviceBanned
    }
}

/// A check-in stored in the transaction that applies the rules, with the status it was stored
/// with and its per-hour sums as analysed.
public struct JoinedCheckIn<Key: Hashable & Sendable>: Sendable {
    public var key: Key
    public var status: CheckInStatus
    public var hours: [LocalHour: CellSums]

    public init(key: Key, status: CheckInStatus, hours: [LocalHour: CellSums]) {
        self.key = key
        self.status = status
        self.hours = hours
    }
}

extension Analysis {
    /// The cells a local hour adds to: itself, its weekday, its hour of any weekday, and overall.
    public static func cells(covering hour: LocalHour) -> [LocalHour] {
        [
            hour,
            LocalHour(weekday: hour.weekday, hour: LoudnessAggregate.everyHour),
            LocalHour(weekday: LoudnessAggregate.everyWeekday, hour: hour.hour),
            LocalHour(weekday: LoudnessAggregate.everyWeekday, hour: LoudnessAggregate.everyHour),
        ]
    }

    /// What one check-in adds to each cell when it starts to count: its kept samples and energies,
    /// and 1 check-in in every cell it covers, however many of its hours fall in that cell.
    /// `only`: these cells, the others left out.
    static func cellAdditions(of hours: [LocalHour: CellSums], only: Set<LocalHour>? = nil) -> [LocalHour: LoudnessAggregate] {
        var cells: [LocalHour: LoudnessAggregate] = [:]
        for (hour, sums) in hours {
            for cell in Self.cells(covering: hour) where only?.contains(cell) ?? true {
                cells[cell, default: LoudnessAggregate(weekday: cell.weekday, hour: cell.hour, checkins: 1, sums: .none)].sums.add(sums)
            }
        }
        return cells
    }

    /// How a venue's stored cells follow status changes. Check-ins that start counting are added to
    /// them. When one stops counting, the cells of its hours (and those of the others that changed)
    /// are summed again instead of taking its energy away: a loud check-in's energy can be 10^15
    /// times a quiet one's, and subtracting it would leave rounding larger than what stays; the
    /// cells covering those follow them within a bound on that rounding
    /// (`cellWrites(summingAgain:from:stored:)`). The venue's other cells hold none of them and stay.
    ///
    /// `joined` are check-ins stored in the same transaction (one upload, or a group committed
    /// together): they are in no cell yet, and their sums are known without reading them back.
    @_specialize(exported: true, where Key == Int64)
    public static func cellUpdate<Key>(after changes: [StatusChange<Key>], joined: [JoinedCheckIn<Key>] = []) -> CellUpdate<Key> {
        var changes = changes
        let joinedStatuses = joined.map { changes.status(of: $0.key) ?? $0.status }
        let joinedKeys = Set(joined.map(\.key))
        changes.removeAll { joinedKeys.contains($0.key) }
        // A new check-in (never from a banned device: their writes are refused) counted nowhere before.
        for (checkIn, status) in zip(joined, joinedStatuses) {
            changes.append(StatusChange(key: checkIn.key, from: .tooShort, to: status, deviceBanned: false))
        }
        if changes.contains(where: { counts(status: $0.from, deviceBanned: $0.deviceBanned) && !counts(status: $0.to, deviceBanned: $0.deviceBanned) }) {
            return .sumAgain(changes)
        }
        var read = Set(changes.filter { counts(status: $0.to, deviceBanned: $0.deviceBanned) }.map(\.key))
        var known: [HourContribution<Key>] = []
        for (checkIn, status) in zip(joined, joinedStatuses) where read.remove(checkIn.key) != nil {
            known += checkIn.hours.map { HourContribution(checkIn: checkIn.key, hour: $0.key, sums: $0.value, status: status, deviceBanned: false) }
        }
        return .add(read: read, known: known)
    }

    /// A venue's cells from scratch, from the per-hour sums of its check-ins: the definition the
    /// stored cells must always equal. Cells nothing counts in are left out. Given only the check-ins
    /// that start to count, it is what they add to the stored cells.
    /// `only`: these cells, the others left out.
    @_specialize(exported: true, where Key == Int64)
    public static func cells<Key>(from contributions: [HourContribution<Key>], only: Set<LocalHour>? = nil) -> [LocalHour: LoudnessAggregate] {
        var byCheckIn: [Key: [LocalHour: CellSums]] = [:]
        for contribution in contributions where counts(status: contribution.status, deviceBanned: contribution.deviceBanned) {
            byCheckIn[contribution.checkIn, default: [:]][contribution.hour] = contribution.sums
        }
        var cells: [LocalHour: LoudnessAggregate] = [:]
        for hours in byCheckIn.values {
            for (cell, change) in cellAdditions(of: hours, only: only) {
                cells[cell] = cells[cell].map { $0.adding(change) } ?? change
            }
        }
        return cells
    }

    /// What a store writes for `.add`: `additions` (what the check-ins that start to count add,
    /// `cells(from:)` of their per-hour sums) added to the stored cells they touch, read from
    /// `stored` (any of the venue's cells; the others are passed over). Histograms add bin by bin,
    /// which SQL cannot do, so the sum is made here.
    public static func cellWrites(adding additions: [LocalHour: LoudnessAggregate], to stored: [LoudnessAggregate]) -> CellWrites {
        var totals = additions
        for cell in stored {
            if let addition = additions[cell.cell] { totals[cell.cell] = cell.adding(addition) }
        }
        return CellWrites(deleting: .none, writing: Array(totals.values))
    }

    /// What a store writes for `.sumAgain(nil)`: every cell of the venue from scratch, from every
    /// per-hour sum of its check-ins (`contributions`), after deleting every stored one.
    public static func cellWrites<Key>(summingAllFrom contributions: [HourContribution<Key>]) -> CellWrites {
        CellWrites(deleting: .every, writing: Array(cells(from: contributions).values))
    }

    /// The stored cells `cellWrites(adding:to:)` reads: those on the added cells' weekdays at their
    /// hours — the added cells themselves (four for a check-in within one hour), and for a check-in
    /// across midnight a few others, which it passes over.
    public static func storedCells(adding added: some Collection<LocalHour>) -> CellSelection {
        CellSelection(weekdays: Set(added.map(\.weekday)), hours: Set(added.map(\.hour)), match: .both)
    }

    /// The stored cells a sum-again reads first, where `hourCells` are the cells of one weekday and
    /// hour that the changed check-ins' hours fall in: those cells and the weekday, hour and overall
    /// cells that cover them (see `cellWrites(summingAgain:from:stored:)`).
    public static func storedCells(shifting hourCells: Set<LocalHour>) -> CellSelection {
        CellSelection(
            weekdays: Set(hourCells.map(\.weekday)).union([LoudnessAggregate.everyWeekday]),
            hours: Set(hourCells.map(\.hour)).union([LoudnessAggregate.everyHour]), match: .both)
    }

    /// The stored cells a sum-again reads when a cell must be added up from its parts: every cell
    /// on the weekdays of `hourCells`, every cell at their hours, and each weekday's whole day
    /// (which the overall cell is the sum of).
    public static func storedCells(summingAgain hourCells: Set<LocalHour>) -> CellSelection {
        CellSelection(weekdays: Set(hourCells.map(\.weekday)), hours: Set(hourCells.map(\.hour)).union([LoudnessAggregate.everyHour]), match: .either)
    }

    /// What a store writes for `.sumAgain(changes)`, reading no more than the cells of one weekday
    /// and hour where the changed check-ins were, however many check-ins the venue holds:
    ///
    /// - each such cell is summed again from the per-hour sums of every check-in in it
    ///   (`contributions`: those in the cells of the changed check-ins' hours);
    /// - each weekday, hour and overall cell covering them takes those cells' stored sums away and
    ///   adds their new ones (`stored`: the cells `storedCells(shifting:)` selects), as long as
    ///   the rounding that leaves stays within `LoudnessAggregate.roundingLimit`;
    /// - its check-in count, which counts a check-in once however many of its hours it holds and so
    ///   is no sum of the cells it spans, is the stored count plus those that start counting in it
    ///   less those that stop: whole numbers, exact.
    ///
    /// Cells nothing counts in any more are deleted. `nil` when a covering cell's rounding would
    /// pass the limit: then the store reads the cells `storedCells(summingAgain:)` selects and
    /// calls `cellWrites(summingAgain:from:storedWithParts:)`.
    public static func cellWrites<Key>(
        summingAgain changes: [StatusChange<Key>], from contributions: [HourContribution<Key>], stored: [LoudnessAggregate]
    ) -> CellWrites? {
        cellWrites(summingAgain: changes, from: contributions, stored: stored, partsRead: false)
    }

    /// `cellWrites(summingAgain:from:stored:)` where that gave `nil`, from the cells
    /// `storedCells(summingAgain:)` selects: a covering cell whose rounding would pass the limit
    /// is the sum of the cells it spans — one weekday and hour each, or for the overall cell each
    /// weekday's whole day — as summed again or stored.
    public static func cellWrites<Key>(
        summingAgain changes: [StatusChange<Key>], from contributions: [HourContribution<Key>], storedWithParts stored: [LoudnessAggregate]
    ) -> CellWrites {
        // Never nil: with the parts read, every covering cell can be added up.
        cellWrites(summingAgain: changes, from: contributions, stored: stored, partsRead: true)!
    }

    @_specialize(exported: true, where Key == Int64)
    static func cellWrites<Key>(
        summingAgain changes: [StatusChange<Key>], from contributions: [HourContribution<Key>], stored: [LoudnessAggregate], partsRead: Bool
    ) -> CellWrites? {
        let changed = Set(changes.map(\.key))
        let changedHours = Dictionary(grouping: contributions.filter { changed.contains($0.checkIn) }, by: \.checkIn)
        let hourCells = Set(changedHours.values.joined().map(\.hour))
        let summed = cells(from: contributions, only: hourCells)
        let before = Dictionary(stored.map { ($0.cell, $0) }, uniquingKeysWith: { first, _ in first })
        var byCell = before
        for cell in hourCells { byCell[cell] = summed[cell] }

        var countChange: [LocalHour: Int] = [:]
        for change in changes {
            let delta = (counts(status: change.to, deviceBanned: change.deviceBanned) ? 1 : 0)
                - (counts(status: change.from, deviceBanned: change.deviceBanned) ? 1 : 0)
            guard delta != 0, let hours = changedHours[change.key] else { continue }
            for cell in Set(hours.flatMap { cells(covering: $0.hour).dropFirst() }) { countChange[cell, default: 0] += delta }
        }
        let spanning = Set(hourCells.flatMap { cells(covering: $0).dropFirst() })
        // The overall cell last: it is summed from the whole days.
        let overall = LocalHour(weekday: LoudnessAggregate.everyWeekday, hour: LoudnessAggregate.everyHour)
        for cell in spanning.sorted(by: { ($0 == overall ? 1 : 0, $0) < ($1 == overall ? 1 : 0, $1) }) {
            let checkins = (before[cell]?.checkins ?? 0) + countChange[cell, default: 0]
            guard checkins > 0 else {
                byCell[cell] = nil
                continue
            }
            // A cell nothing counted in is stored nowhere, and nothing counted in the cells it spans.
            let covered = hourCells.filter { cells(covering: $0).contains(cell) }
            let current = before[cell] ?? LoudnessAggregate(weekday: cell.weekday, hour: cell.hour, checkins: 0, sums: .none)
            if let shifted = current.shifted(
                checkins: checkins, removing: covered.reduce(.none) { $0.adding(before[$1]?.sums ?? .none) },
                adding: covered.reduce(.none) { $0.adding(summed[$1]?.sums ?? .none) })
            {
                byCell[cell] = shifted
            } else if partsRead {
                byCell[cell] = LoudnessAggregate.summed(byCell.values.filter { cell.spans($0.cell) }, as: cell, checkins: checkins)
            } else {
                return nil
            }
        }
        let updated = hourCells.union(spanning)
        return CellWrites(deleting: .cells(updated.filter { byCell[$0] == nil }), writing: updated.compactMap { byCell[$0] })
    }
}

extension LocalHour {
    /// Whether `part` is one of the cells this one is the sum of: for a weekday's whole day or an
    /// hour of every weekday, the cells of one weekday and hour within it; for the overall cell,
    /// each weekday's whole day.
    func spans(_ part: LocalHour) -> Bool {
        let every = LoudnessAggregate.everyWeekday, whole = LoudnessAggregate.everyHour
        switch (weekday, hour) {
        case (every, whole): return part.weekday != every && part.hour == whole
        case (every, _): return part.weekday != every && part.hour == hour
        case (_, whole): return part.weekday == weekday && part.hour != whole
        default: return false
        }
    }
}

extension LoudnessAggregate {
    /// This cell with a check-in's sums added (see `Analysis.cellAdditions`).
    public func adding(_ change: LoudnessAggregate) -> LoudnessAggregate {
        // Adding positive energies leaves each nearer its sum, relatively, than the larger bound.
        LoudnessAggregate(
            weekday: weekday, hour: hour, checkins: checkins + change.checkins, sums: sums.adding(change.sums), rounding: max(rounding, change.rounding))
    }

    /// Equal counts and histograms, and energies equal within the error of summing in another order.
    public func matches(_ other: LoudnessAggregate) -> Bool {
        cell == other.cell && checkins == other.checkins && sums.matches(other.sums)
    }
}

extension Analysis {
    /// Sums of the same positive energies in different orders (and levels derived from them) agree
    /// to about 1e-15 of their size; 1e-9 is far above that and far below anything an answer shows
    /// (4e-9 dB).
    public static func equalWithinRounding(_ a: Double, _ b: Double) -> Bool {
        abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1)
    }
}

/// What to do with a venue's stored cells after status changes (see `Analysis.cellUpdate`).
public enum CellUpdate<Key: Hashable & Sendable>: Equatable {
    /// Add the per-hour sums of the check-ins that start to count: those of `read`, from the
    /// store, and `known` (check-ins stored in the same transaction, as analysed).
    case add(read: Set<Key>, known: [HourContribution<Key>])
    /// Sum cells again: those that cover the hours of the check-ins of these changes (see
    /// `cellWrites(summingAgain:from:stored:)`), or every cell of the venue from scratch (nil; see
    /// `cellWrites(summingAllFrom:)`).
    case sumAgain([StatusChange<Key>]?)
}
