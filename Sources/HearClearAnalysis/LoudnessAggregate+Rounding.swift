import HearClearCore

/// A weekday's, an hour's or the overall cell follows a change in the cells it spans by taking
/// their old sums away and adding their new ones, rather than by adding up every cell it spans
/// again: that reads 4 cells instead of about 40 (docs/profiling.md). Taking an energy away leaves
/// rounding relative to the sum before, which a much smaller sum after can no longer hide, so each
/// cell keeps a bound on how far its energies may be (`rounding`), and a change that would take it
/// past `roundingLimit` adds the cell up from its parts instead.
extension LoudnessAggregate {
    /// A tenth of what `Analysis.equalWithinRounding` allows between a stored cell and its cell
    /// summed from scratch, so that `verify` holds whatever order either was summed in.
    public static let roundingLimit = 1e-10
    /// How far a sum of positive energies may be from their exact sum by the order they were added
    /// in: `equalWithinRounding`'s premise is about 1e-15; a hundred times that.
    static let orderRounding = 1e-13
    /// The largest relative error of one floating-point addition or subtraction.
    static let unitRoundoff = Double.ulpOfOne / 2

    /// This cell, counting `checkins`, with the sums of the cells it spans that changed taken away
    /// (`removed`, as they were stored: only ever added up) and added again as they now are
    /// (`added`); `nil` when its energies' rounding would pass `roundingLimit` or a count would fall
    /// below 0, and the cell must be added up from its parts.
    func shifted(checkins: Int, removing removed: CellSums, adding added: CellSums) -> LoudnessAggregate? {
        guard let sums = sums.removing(removed)?.adding(added) else { return nil }
        // An energy with no sample left is exactly 0 (`CellSums.removing`), however it was rounded.
        let held = [sums.samples > 0] + Array(repeating: sums.details.samples > 0, count: sums.details.energies.count)
        let before = self.sums.energies, taken = removed.energies, given = added.energies, after = sums.energies
        var rounding = 0.0
        for index in held.indices where held[index] {
            guard after[index] > 0 else { return nil }
            // What this cell carried, what the order of each sum may add, and the two roundings
            // of taking away and adding.
            let error =
                max(self.rounding, Self.orderRounding) * before[index] + Self.orderRounding * (taken[index] + given[index])
                + Self.unitRoundoff * (abs(before[index] - taken[index]) + after[index])
            rounding = max(rounding, error / after[index])
        }
        guard rounding <= Self.roundingLimit else { return nil }
        return LoudnessAggregate(weekday: weekday, hour: hour, checkins: checkins, sums: sums, rounding: rounding)
    }

    /// `cell`, counting `checkins`, added up from `parts`: the rounding they carry is weighed by
    /// their share of each energy, so that one part near `roundingLimit` does not put the sum there.
    static func summed(_ parts: [LoudnessAggregate], as cell: LocalHour, checkins: Int) -> LoudnessAggregate {
        let sums = parts.reduce(CellSums.none) { $0.adding($1.sums) }
        var rounding = 0.0
        for (index, total) in sums.energies.enumerated() where total > 0 {
            rounding = max(rounding, parts.reduce(0) { $0 + $1.rounding * $1.sums.energies[index] } / total)
        }
        return LoudnessAggregate(weekday: cell.weekday, hour: cell.hour, checkins: checkins, sums: sums, rounding: rounding)
    }
}
