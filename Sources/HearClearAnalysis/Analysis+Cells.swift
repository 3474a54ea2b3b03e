import HearClearCore

/// One row of a check-in's per-hour sums, with what decides whether it counts: what the stores
/// fetch to build or check a venue's cells.
public struct HourContribution<Key: Hashable & Sendable>: Equatable, Sendable {
    public var checkIn: Key
    public var hour: LocalHour
    public var share: CheckInAnalysis.HourShare
    public var status: CheckInStatus
    public var deviceBanned: Bool

    public init(checkIn: Key, hour: LocalHour, share: CheckInAnalysis.HourShare, status: CheckInStatus, deviceBanned: Bool) {
        self.checkIn = checkIn
        self.hour = hour
        self.share = share
        self.status = status
        self.deviceBanned = deviceBanned
    }
}

/// A check-in stored in the transaction that applies the rules, with the status it was stored
/// with and its per-hour sums as analysed.
public struct JoinedCheckIn<Key: Hashable & Sendable>: Sendable {
    public var key: Key
    public var status: CheckInStatus
    public var hours: [LocalHour: CheckInAnalysis.HourShare]

    public init(key: Key, status: CheckInStatus, hours: [LocalHour: CheckInAnalysis.HourShare]) {
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
    static func cellAdditions(of hours: [LocalHour: CheckInAnalysis.HourShare], only: Set<LocalHour>? = nil) -> [LocalHour: LoudnessAggregate] {
        var cells: [LocalHour: LoudnessAggregate] = [:]
        for (hour, share) in hours {
            for cell in Self.cells(covering: hour) where only?.contains(cell) ?? true {
                var sum = cells[cell] ?? LoudnessAggregate(weekday: cell.weekday, hour: cell.hour, checkins: 1, samples: 0, energy: 0)
                sum.samples += share.samples
                sum.energy += share.energy
                sum.details = sum.details.adding(share.details)
                sum.spread = sum.spread.adding(share.spread)
                sum.sounds = sum.sounds.adding(share.sounds)
                cells[cell] = sum
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
            HourContribution(checkIn: joined.key, hour: $0.key, share: $0.value, status: joinedStatus, deviceBanned: false)
        }
        return .add(read: read, known: known)
    }

    /// A venue's cells from scratch, from the per-hour sums of its check-ins: the definition the
    /// stored cells must always equal. Cells nothing counts in are left out. Given only the check-ins
    /// that start to count, it is what they add to the stored cells.
    /// `only`: these cells, the others left out.
    public static func cells<Key>(from contributions: [HourContribution<Key>], only: Set<LocalHour>? = nil) -> [LocalHour: LoudnessAggregate] {
        var byCheckIn: [Key: [LocalHour: CheckInAnalysis.HourShare]] = [:]
        for contribution in contributions where counts(status: contribution.status, deviceBanned: contribution.deviceBanned) {
            byCheckIn[contribution.checkIn, default: [:]][contribution.hour] = contribution.share
        }
        var cells: [LocalHour: LoudnessAggregate] = [:]
        for hours in byCheckIn.values {
            for (cell, change) in cellAdditions(of: hours, only: only) {
                cells[cell] = cells[cell].map { $0.adding(change) } ?? change
            }
        }
        return cells
    }

    /// The cells `.sumAgain` names, summed again from every per-hour sum of a venue's check-ins
    /// (`contributions`, all of them): those covering the hours of `changed` check-ins, or every cell
    /// (nil). `emptied` are the cells among them nothing counts in any more, for the store to delete.
    public static func cellsSummedAgain<Key>(
        from contributions: [HourContribution<Key>], coveringHoursOf changed: Set<Key>?
    ) -> (cells: [LocalHour: LoudnessAggregate], emptied: Set<LocalHour>) {
        guard let changed else { return (cells(from: contributions), []) }
        let affected = Set(contributions.filter { changed.contains($0.checkIn) }.flatMap { Self.cells(covering: $0.hour) })
        let sums = cells(from: contributions, only: affected)
        return (sums, affected.subtracting(sums.keys))
    }
}

extension LoudnessAggregate {
    /// This cell with a check-in's sums added (see `Analysis.cellAdditions`).
    public func adding(_ change: LoudnessAggregate) -> LoudnessAggregate {
        LoudnessAggregate(
            weekday: weekday, hour: hour, checkins: checkins + change.checkins, samples: samples + change.samples, energy: energy + change.energy,
            details: details.adding(change.details), spread: spread.adding(change.spread), sounds: sounds.adding(change.sounds))
    }

    /// Equal counts and histograms, and energies equal within the error of summing in another order.
    public func matches(_ other: LoudnessAggregate) -> Bool {
        cell == other.cell && checkins == other.checkins && samples == other.samples && Analysis.equalWithinRounding(energy, other.energy)
            && details.matches(other.details) && spread == other.spread && sounds == other.sounds
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
    /// check-ins (whose status changed), or every cell of the venue (nil; see `cellsSummedAgain`).
    case sumAgain(Set<Key>?)
}
