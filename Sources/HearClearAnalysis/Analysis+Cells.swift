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
    /// them. When one stops counting, the cells that cover its hours (and those of the others that
    /// changed) are summed again from every check-in's per-hour sums instead of taking its energy
    /// away: a loud check-in's energy can be 10^15 times a quiet one's, and subtracting it would
    /// leave rounding larger than what stays. The venue's other cells hold none of them and stay.
    ///
    /// `joined` is a check-in stored in the same transaction: it is in no cell yet, and its sums
    /// are known without reading them back.
    public static func cellUpdate<Key>(after changes: [StatusChange<Key>], joined: JoinedCheckIn<Key>? = nil) -> CellUpdate<Key> {
        var changes = changes
        let joinedStatus = joined.map { changes.status(of: $0.key) ?? $0.status }
        if let joined, let joinedStatus {
            changes.removeAll { $0.key == joined.key }
            // A new check-in (never from a banned device: their writes are refused) counted nowhere before.
            changes.append(StatusChange(key: joined.key, from: .tooShort, to: joinedStatus, deviceBanned: false))
        }
        if changes.contains(where: { counts(status: $0.from, deviceBanned: $0.deviceBanned) && !counts(status: $0.to, deviceBanned: $0.deviceBanned) }) {
            return .sumAgain(Set(changes.map(\.key)))
        }
        var read = Set(changes.filter { counts(status: $0.to, deviceBanned: $0.deviceBanned) }.map(\.key))
        guard let joined, let joinedStatus, read.remove(joined.key) != nil else { return .add(read: read, known: []) }
        let known = joined.hours.map {
            HourContribution(checkIn: joined.key, hour: $0.key, sums: $0.value, status: joinedStatus, deviceBanned: false)
        }
        return .add(read: read, known: known)
    }

    /// A venue's cells from scratch, from the per-hour sums of its check-ins: the definition the
    /// stored cells must always equal. Cells nothing counts in are left out. Given only the check-ins
    /// that start to count, it is what they add to the stored cells.
    /// `only`: these cells, the others left out.
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

    /// What a store writes for `.sumAgain`: the cells covering the hours of the `changed` check-ins
    /// (or every cell, nil) summed again from every per-hour sum of the venue's check-ins
    /// (`contributions`, all of them); those among them nothing counts in any more are deleted.
    public static func cellWrites<Key>(summingAgain changed: Set<Key>?, from contributions: [HourContribution<Key>]) -> CellWrites {
        guard let changed else { return CellWrites(deleting: .every, writing: Array(cells(from: contributions).values)) }
        let affected = Set(contributions.filter { changed.contains($0.checkIn) }.flatMap { Self.cells(covering: $0.hour) })
        let sums = cells(from: contributions, only: affected)
        return CellWrites(deleting: .cells(affected.subtracting(sums.keys)), writing: Array(sums.values))
    }
}

extension LoudnessAggregate {
    /// This cell with a check-in's sums added (see `Analysis.cellAdditions`).
    public func adding(_ change: LoudnessAggregate) -> LoudnessAggregate {
        LoudnessAggregate(weekday: weekday, hour: hour, checkins: checkins + change.checkins, sums: sums.adding(change.sums))
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
    /// store, and `known` (a check-in stored in the same transaction, as analysed).
    case add(read: Set<Key>, known: [HourContribution<Key>])
    /// Sum cells again from every check-in's per-hour sums: those that cover the hours of these
    /// check-ins (whose status changed), or every cell of the venue (nil; see `cellWrites(summingAgain:from:)`).
    case sumAgain(Set<Key>?)
}
