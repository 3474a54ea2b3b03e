import Foundation
import HearClearCore

/// Check-ins drawn from a known truth, to measure estimates against it (`hearclear-server
/// evaluate --synthetic SEED`, `EstimateTests`). Each kind has an hour-of-week profile of its own
/// (cafés busiest at lunch, bars and pubs in the evening, clubs at night, all louder on Friday and
/// Saturday nights); each venue is its kind's profile plus an offset of its own (4 dB standard
/// deviation) and a gentle hourly wave of its own (1.5 dB); each check-in is its hour's level plus
/// noise (2.5 dB). Check-ins come only in opening hours, and only some of those are measured, one to
/// three times each: as crowds measure.
public struct SyntheticVenues: Sendable {
    public let observations: [HourObservation<Int>]
    /// The true level of a venue's weekday and hour: what a check-in there would read without noise.
    public let truth: [String: [Double]]

    public static let kinds: [VenueKind] = [.cafe, .restaurant, .pub, .bar, .club, .other]

    /// `venuesPerKind` venues of each kind, each with about `measuredShare` of the week's 168 hours
    /// measured (all of them open hours).
    public init(seed: UInt64, venuesPerKind: Int = 10, measuredShare: Double = 0.15) {
        var random = SplitMix64(seed: seed)
        var observations: [HourObservation<Int>] = []
        var truth: [String: [Double]] = [:]
        for kind in Self.kinds {
            for number in 0..<venuesPerKind {
                let venue = "\(kind.rawValue)-\(number)"
                let offset = 4 * random.normal()
                // A sine of amplitude √2·1.5 has a standard deviation of 1.5.
                let phase = random.uniform() * 2 * Double.pi, wave = 1.5 * 2.0.squareRoot()
                let levels = (0..<HourEstimates.hoursOfWeek).map { index in
                    Self.profile(kind, weekday: index / 24, hour: index % 24) + offset + wave * sin(2 * Double.pi * Double(index) / 24 + phase)
                }
                truth[venue] = levels
                let open = (0..<HourEstimates.hoursOfWeek).filter { Self.isOpen(kind, hour: $0 % 24) }
                let chance = min(1, measuredShare * Double(HourEstimates.hoursOfWeek) / Double(open.count))
                for index in open where random.uniform() < chance {
                    for _ in 0..<(1 + Int(random.uniform() * 3)) {
                        observations.append(
                            HourObservation(
                                venue: venue, kind: kind, checkIn: observations.count, hour: LocalHour(weekday: index / 24, hour: index % 24),
                                level: levels[index] + 2.5 * random.normal()))
                    }
                }
            }
        }
        self.observations = observations
        self.truth = truth
    }

    static func isOpen(_ kind: VenueKind, hour: Int) -> Bool {
        switch kind {
        case .cafe: (7..<19).contains(hour)
        case .club: hour >= 21 || hour < 4
        default: (11..<24).contains(hour)
        }
    }

    /// The kind's true level at a weekday and hour, dB(A).
    static func profile(_ kind: VenueKind, weekday: Int, hour: Int) -> Double {
        let weekend = weekday == 4 || weekday == 5
        func bump(at peak: Double, width: Double) -> Double {
            let distance = min(abs(Double(hour) - peak), 24 - abs(Double(hour) - peak))
            return exp(-distance * distance / (2 * width * width))
        }
        switch kind {
        case .cafe: return 60 + 8 * bump(at: 12.5, width: 2) + (weekday >= 5 ? 3 : 0)
        case .restaurant: return 62 + 6 * bump(at: 13, width: 1.5) + 9 * bump(at: 20, width: 1.5) + (weekend ? 3 : 0)
        case .pub: return 64 + 12 * bump(at: 21, width: 3) + (weekend ? 4 : 0)
        case .bar: return 66 + 14 * bump(at: 23, width: 3) + (weekend ? 5 : 0)
        case .club: return 84 + 8 * bump(at: 1, width: 2) + (weekend ? 4 : 0)
        case .other: return 63 + 5 * bump(at: 18, width: 4)
        }
    }
}
