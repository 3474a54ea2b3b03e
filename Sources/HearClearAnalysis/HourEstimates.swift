import Foundation
import HearClearCore

/// How loud every weekday-hour of a venue probably is, measured or not, and how sure that is
/// (docs/analysis.md, "Estimates for the hours nobody measured"). A check-in's level in an hour is
/// modelled as
///
///     level = venue + profile(kind, hour) + deviation(venue, hour) + noise
///
/// - `venue`: the venue's own level, the mean of its check-ins once the profile is taken out,
///   leaning on its kind's as far as venues of a kind really differ;
/// - `profile`: how venues of its kind differ from their own level at that weekday and hour,
///   smoothed over neighbouring and similar hours and shrunk towards every venue's profile where
///   the kind has few check-ins;
/// - `deviation`: what this venue does differently at that hour, from its own check-ins there
///   and at neighbouring hours, shrunk towards nothing in proportion to how many there are;
/// - `noise`: one check-in against another at the same venue and hour.
///
/// The two spreads (noise, and deviations) are measured from the data. An estimate's interval is
/// for the level one more visit would measure: the noise and what the estimate does not know
/// about the venue, its profile and its deviation. Nothing here counts as a measurement: an
/// estimate never changes a cell's check-in count or confidence.
public struct HourEstimates: Sendable {
    public struct Estimate: Sendable, Equatable {
        /// The central level, dB.
        public var level: Double
        /// The interval that holds `HourEstimates.coverage` of a visit's levels, dB.
        public var low: Double
        public var high: Double
    }

    struct Venue {
        var kind: VenueKind
        var level: Double
        /// How uncertain `level` is, dB² (known once the spreads are).
        var levelVariance: Double
        var observations: Int
        /// Per hour of the week: the sum of the check-ins' residuals (level − venue − profile) and their number.
        var residuals: [Int: (sum: Double, count: Int)]
    }

    let parameters: EstimateParameters
    /// Each hour of the week's neighbours (`neighbours(of:parameters:)`), worked out once per fit
    /// rather than for each estimate an answer asks for.
    let neighbours: [[(index: Int, weight: Double)]]
    let venues: [String: Venue]
    /// Per kind, 168 values (hour of the week, Monday 0:00 first), dB; and the check-ins behind each.
    let profiles: [VenueKind: [Double]]
    let profileCounts: [VenueKind: [Double]]
    /// The variance of a check-in around its venue's hour, and of a venue's hour around its kind's, dB².
    public let noiseVariance: Double
    public let deviationVariance: Double
    /// The share of a visit's levels an interval holds: API v2's `interval_80`.
    public static let coverage = 0.8
    /// Standard deviations either side of the central level that hold `coverage`.
    static let spreads = normalQuantile((1 + coverage) / 2)

    static let hoursOfWeek = 168

    static func index(of hour: LocalHour) -> Int { hour.weekday * 24 + hour.hour }

    /// The cells that say something about a cell, with how much against 1 for itself: the hours
    /// next to it (across midnight too, since an evening runs on past it), and the same hours on
    /// similar weekdays.
    static func neighbours(of index: Int, parameters: EstimateParameters) -> [(index: Int, weight: Double)] {
        let similarDays: [[Int]] = [[0, 1, 2, 3], [4, 5], [6]]
        let day = index / 24, hour = index % 24
        var result: [(Int, Double)] = []
        for offset in -2...2 {
            let weight = pow(parameters.neighbourHourWeight, Double(abs(offset)))
            if weight > 0 { result.append(((index + offset + hoursOfWeek) % hoursOfWeek, weight)) }
            guard abs(offset) <= 1, parameters.similarDayWeight > 0 else { continue }
            for other in similarDays.first(where: { $0.contains(day) })! where other != day {
                let similar = parameters.similarDayWeight * weight
                if similar > 0 { result.append(((other * 24 + hour + offset + hoursOfWeek) % hoursOfWeek, similar)) }
            }
        }
        return result
    }

    /// Fits the model to every observation given: those of all venues, so that each kind's profile
    /// rests on all of its venues.
    public init<Key>(observations: [HourObservation<Key>], parameters: EstimateParameters = .standard) {
        self.parameters = parameters
        let neighbours = (0..<Self.hoursOfWeek).map { Self.neighbours(of: $0, parameters: parameters) }
        self.neighbours = neighbours
        let byVenue = Dictionary(grouping: observations, by: \.venue)
        var kinds: [String: VenueKind] = [:]
        for (venue, list) in byVenue { kinds[venue] = list[0].kind }

        // Backfitting: the venues' levels with the profiles taken out, then the profiles with the
        // venues' levels taken out; a few rounds settle to well under a tenth of a decibel.
        var levels: [String: Double] = [:]
        var profiles: [VenueKind: [Double]] = [:]
        var profileCounts: [VenueKind: [Double]] = [:]
        func profile(_ kind: VenueKind, _ index: Int) -> Double { profiles[kind]?[index] ?? 0 }
        let prior = parameters.profilePriorCheckIns
        for _ in 0..<4 {
            for (venue, list) in byVenue {
                levels[venue] = list.reduce(0) { $0 + $1.level - profile($1.kind, Self.index(of: $1.hour)) } / Double(list.count)
            }
            let empty = [Double](repeating: 0, count: Self.hoursOfWeek)
            var sums: [VenueKind?: [Double]] = [nil: empty], counts: [VenueKind?: [Double]] = [nil: empty]
            for observation in observations {
                let index = Self.index(of: observation.hour), residual = observation.level - levels[observation.venue]!
                for kind in [observation.kind, nil] as [VenueKind?] {
                    sums[kind, default: empty][index] += residual
                    counts[kind, default: empty][index] += 1
                }
            }
            // Every venue's profile leans on nothing (0 dB off a venue's level); a kind's on every venue's.
            let every = (0..<Self.hoursOfWeek).map {
                Self.shrunkMean(at: $0, sums: sums[nil]!, counts: counts[nil]!, prior: 0, strength: prior, neighbours: neighbours[$0])
            }
            profiles = [:]
            profileCounts = [:]
            for case let kind? in sums.keys {
                profiles[kind] = (0..<Self.hoursOfWeek).map {
                    Self.shrunkMean(at: $0, sums: sums[kind]!, counts: counts[kind]!, prior: every[$0], strength: prior, neighbours: neighbours[$0])
                }
                profileCounts[kind] = counts[kind]!
            }
        }

        var venues: [String: Venue] = [:]
        for (venue, list) in byVenue {
            var residuals: [Int: (sum: Double, count: Int)] = [:]
            for observation in list {
                let index = Self.index(of: observation.hour)
                let residual = observation.level - levels[venue]! - profile(observation.kind, index)
                residuals[index, default: (0, 0)].sum += residual
                residuals[index, default: (0, 0)].count += 1
            }
            venues[venue] = Venue(
                kind: kinds[venue]!, level: levels[venue]!, levelVariance: 0, observations: list.count, residuals: residuals)
        }

        // The noise: how check-ins of the same venue and hour differ among themselves.
        var withinSquares = 0.0, withinDegrees = 0, allSquares = 0.0
        var byCell: [String: [Int: [Double]]] = [:]
        for observation in observations {
            let index = Self.index(of: observation.hour)
            byCell[observation.venue, default: [:]][index, default: []].append(observation.level)
        }
        for cells in byCell.values {
            for levels in cells.values {
                let mean = levels.reduce(0, +) / Double(levels.count)
                withinSquares += levels.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
                withinDegrees += levels.count - 1
            }
        }
        for venue in venues.values {
            for residual in venue.residuals.values { allSquares += residual.sum * residual.sum / Double(residual.count) }
        }
        let floor = parameters.minimumSpreadDB * parameters.minimumSpreadDB
        let cellCount = venues.values.reduce(0) { $0 + $1.residuals.count }
        // Without two check-ins of one venue and hour anywhere, the noise cannot be told from the
        // deviations: all of the spread is taken as noise, the wider choice for a visit's interval.
        let noise = withinDegrees > 0 ? withinSquares / Double(withinDegrees) : (cellCount > 0 ? allSquares / Double(cellCount) : floor)
        noiseVariance = max(floor, noise)
        // A cell's mean residual spreads by the deviation, and by the noise over its check-ins.
        var deviationSum = 0.0
        for venue in venues.values {
            for residual in venue.residuals.values {
                let mean = residual.sum / Double(residual.count)
                deviationSum += mean * mean - noiseVariance / Double(residual.count)
            }
        }
        deviationVariance = max(floor, cellCount > 0 ? deviationSum / Double(cellCount) : floor)

        // A venue's own level leans on its kind's, as far as venues of a kind really differ
        // (beyond what their check-ins' spread explains): not at all where they differ by far
        // more, wholly where they do not differ.
        let checkInVariance = noiseVariance + deviationVariance
        var kindLevels: [VenueKind: (sum: Double, count: Double)] = [:]
        for venue in venues.values {
            kindLevels[venue.kind, default: (0, 0)].sum += venue.level
            kindLevels[venue.kind, default: (0, 0)].count += 1
        }
        let kindLevel = kindLevels.mapValues { $0.sum / $0.count }
        var offsetSquares = 0.0, expected = 0.0
        for venue in venues.values {
            offsetSquares += pow(venue.level - kindLevel[venue.kind]!, 2)
            expected += checkInVariance / Double(venue.observations)
        }
        let degrees = Double(venues.count - kindLevels.count)
        let offsetVariance = degrees > 0 ? max(0.01, (offsetSquares - expected) / degrees) : .infinity
        for (id, venue) in venues {
            let ownWeight = Double(venue.observations) / checkInVariance
            let shrunk = offsetVariance.isInfinite ? venue.level
                : (kindLevel[venue.kind]! / offsetVariance + venue.level * ownWeight) / (1 / offsetVariance + ownWeight)
            var residuals = venue.residuals
            for cell in residuals.keys { residuals[cell]!.sum += Double(residuals[cell]!.count) * (venue.level - shrunk) }
            venues[id] = Venue(
                kind: venue.kind, level: shrunk, levelVariance: 1 / ((offsetVariance.isInfinite ? 0 : 1 / offsetVariance) + ownWeight),
                observations: venue.observations, residuals: residuals)
        }
        self.venues = venues
        self.profiles = profiles
        self.profileCounts = profileCounts
    }

    /// The estimate for a venue's weekday and hour (0–6, 0–23). `nil` for a venue without a
    /// counting check-in (a kind alone says nothing about a venue's own level), and for an hour
    /// when no venue of its kind (itself included) was measured at any of its neighbours (within
    /// two hours, or those hours on a similar weekday): most likely an hour they are closed, which
    /// an estimate would call quiet.
    public func estimate(venue id: String, at hour: LocalHour) -> Estimate? {
        guard let venue = venues[id] else { return nil }
        let index = Self.index(of: hour)
        let neighbours = self.neighbours[index]
        // Its own check-ins count among its kind's.
        let kindCounts = profileCounts[venue.kind] ?? Array(repeating: 0, count: Self.hoursOfWeek)
        guard neighbours.contains(where: { kindCounts[$0.index] > 0 }) else { return nil }
        var sums = [Double](repeating: 0, count: Self.hoursOfWeek), counts = sums
        for (cell, residual) in venue.residuals {
            sums[cell] = residual.sum
            counts[cell] = Double(residual.count)
        }
        // The deviation shrinks towards none as the noise outweighs the check-ins that show it.
        let shrinkage = noiseVariance / deviationVariance
        let deviation = Self.shrunkMean(at: index, sums: sums, counts: counts, prior: 0, strength: shrinkage, neighbours: neighbours)
        let nearby = neighbours.reduce(0) { $1.index == index ? $0 : $0 + $1.weight * counts[$1.index] }
        let beforeOwn = deviationVariance * shrinkage / (nearby + shrinkage)
        let deviationUncertainty = 1 / (1 / beforeOwn + counts[index] / noiseVariance)
        let profileWeight = kindCounts[index] + parameters.profilePriorCheckIns
        let variance = noiseVariance + deviationUncertainty + venue.levelVariance + (noiseVariance + deviationVariance) / profileWeight
        let level = venue.level + (profiles[venue.kind]?[index] ?? 0) + deviation
        let half = Self.spreads * variance.squareRoot()
        return Estimate(level: level, low: level - half, high: level + half)
    }

    /// A cell's mean, shrunk towards what its neighbours say, which is shrunk in turn towards
    /// `prior`; `strength` check-ins' worth of belief at each step. A cell with many check-ins
    /// keeps its own mean, one with none takes its neighbours', and one without either, `prior`.
    static func shrunkMean(
        at index: Int, sums: [Double], counts: [Double], prior: Double, strength: Double, neighbours: [(index: Int, weight: Double)]
    ) -> Double {
        var nearbySum = 0.0, nearbyCount = 0.0
        for neighbour in neighbours where neighbour.index != index {
            nearbySum += neighbour.weight * sums[neighbour.index]
            nearbyCount += neighbour.weight * counts[neighbour.index]
        }
        let nearby = (nearbySum + strength * prior) / (nearbyCount + strength)
        return (sums[index] + strength * nearby) / (counts[index] + strength)
    }

    /// The standard normal distribution's quantile, by bisection on `erf`: Foundation has no
    /// inverse, and this runs once.
    static func normalQuantile(_ probability: Double) -> Double {
        var low = -10.0, high = 10.0
        for _ in 0..<80 {
            let middle = (low + high) / 2
            if 0.5 * (1 + erf(middle / 2.0.squareRoot())) < probability { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
