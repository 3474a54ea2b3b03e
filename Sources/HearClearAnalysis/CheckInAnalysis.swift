import Foundation
import HearClearCore

/// What a check-in contributes on its own, before it is compared with the venue's other check-ins.
public struct CheckInAnalysis: Sendable {
    /// Per sample, whether it was dropped: silence, or a spike (`Analysis.dropped(in:)`).
    public let dropped: [Bool]
    public let keptSamples: Int
    /// Leq of the kept samples, calibrated; `nil` when nothing was kept.
    public let levelDB: Double?
    /// Kept samples per local weekday-hour; a check-in counts once in each.
    public let hours: [LocalHour: CellSums]
    /// The weekday-hour holding most kept samples (the earliest on a tie): where the outlier rule compares it.
    public let homeHour: LocalHour

    public var isTooShort: Bool { Analysis.isTooShort(keptSamples: keptSamples) }
    public var droppedSamples: Int { dropped.count { $0 } }

    /// How many seconds a sample of an interval of `intervalS` counts for in every sum. The API
    /// takes whole seconds; a check-in stored with a part of a second (before it refused them)
    /// counts a second a sample, as it always did.
    public static func seconds(perInterval intervalS: Double) -> Int {
        max(1, Int(intervalS.rounded()))
    }

    /// The analysis of stored samples (ordered by time), each `intervalS` long, of a check-in started at `startedAt`.
    public init(samples: [Sample], startedAt: Date, intervalS: Double, calibrationDB: Double, clock: VenueClock) {
        let seconds = Self.seconds(perInterval: intervalS)
        let levels = samples.map(\.avg)
        dropped = Analysis.dropped(in: levels)
        let start = startedAt.timeIntervalSince1970
        let localHours = clock.localHours(at: samples.map { start + $0.t })

        var hours: [LocalHour: CellSums] = [:]
        var firstSeen: [LocalHour] = []
        var kept = 0
        var energy = 0.0
        for index in levels.indices where !dropped[index] {
            let sampleEnergy = Level.energy(levels[index] + calibrationDB)
            kept += 1
            energy += sampleEnergy
            let hour = localHours[index]
            if hours.index(forKey: hour) == nil { firstSeen.append(hour) }
            // In place: a share taken out and put back copied its histograms every second.
            hours[hour, default: .none].add(samples[index], energy: sampleEnergy, calibrationDB: calibrationDB, seconds: seconds)
        }
        keptSamples = kept
        levelDB = kept > 0 ? Level.level(energy: energy / Double(kept)) : nil
        self.hours = hours
        // The hour with most kept samples; `max(by:)` keeps the first of equals, the earliest.
        let home = firstSeen.max { (hours[$0]?.samples ?? 0) < (hours[$1]?.samples ?? 0) }
        homeHour = home ?? localHours.first ?? LocalHour(weekday: 0, hour: 0)
    }

    public init(checkIn: CheckIn, calibrationDB: Double, clock: VenueClock) {
        self.init(samples: checkIn.samples, startedAt: checkIn.startedAt, intervalS: checkIn.intervalS, calibrationDB: calibrationDB, clock: clock)
    }
}
