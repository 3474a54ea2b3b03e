import Foundation
import HearClearCore

/// How well `HourEstimates` predicts what it was not shown (`hearclear-server evaluate`): the
/// check-ins are split into folds; each fold's observations are predicted by a model fitted to
/// the others, and so are they by two baselines fitted to the same others:
///
/// - the venue's level: the mean of the venue's other check-ins, at any hour;
/// - the kind's hour: the mean of the check-ins of venues of the same kind at that weekday and hour.
///
/// Means of levels, not of energies, for both: the better baselines, since an energy mean leans
/// towards the loudest check-ins. Each baseline's interval is as wide as the spread of its own
/// errors on the check-ins it was fitted to. Every figure is over the same observations: those
/// that all three could predict (the venue had other check-ins, the kind others at that hour).
public struct EstimateEvaluation: Sendable, Equatable {
    public struct Score: Sendable, Equatable {
        public var meanAbsoluteError: Double
        /// The share of the levels inside the interval.
        public var coverage: Double
    }

    public var checkIns: Int
    public var folds: Int
    /// Observations predicted (by all three), and those left out because a baseline could not.
    public var predicted: Int
    public var unpredicted: Int
    public var model: Score
    public var venueLevel: Score
    public var kindHour: Score

    /// The better of the two baselines' mean absolute errors, and how much below it the model's is (0.3: 30 %).
    public var improvement: Double {
        1 - model.meanAbsoluteError / min(venueLevel.meanAbsoluteError, kindHour.meanAbsoluteError)
    }

    /// `improvement` in a sentence, whichever way it goes: "… 40 % below the better baseline's (the
    /// kind's hour)."; an estimate worse than a baseline is said to be above it.
    public var comparison: String {
        let baseline = venueLevel.meanAbsoluteError <= kindHour.meanAbsoluteError ? "the venue's level" : "the kind's hour"
        let percent = Int((abs(improvement) * 100).rounded())
        let relation = percent == 0 ? "" : "\(percent) % \(improvement > 0 ? "below" : "above") "
        return "The estimate's error is \(relation)the better baseline's (\(baseline))."
    }

    /// Check-ins go to folds in turn, in the order they first appear: deterministic for a store's ordered rows.
    public init<Key>(observations: [HourObservation<Key>], parameters: EstimateParameters = .standard, folds: Int = 10) {
        var foldOf: [Key: Int] = [:]
        for observation in observations where foldOf[observation.checkIn] == nil {
            foldOf[observation.checkIn] = foldOf.count % folds
        }
        let spreads = HourEstimates.spreads
        var errors: [[Double]] = [[], [], []]
        var inside = [0, 0, 0]
        var unpredicted = 0
        for fold in 0..<folds {
            let training = observations.filter { foldOf[$0.checkIn] != fold }
            let model = HourEstimates(observations: training, parameters: parameters)
            let venueLevel = Baseline(training) { $0.venue }
            let kindHour = Baseline(training) { "\($0.kind.rawValue) \($0.hour.weekday) \($0.hour.hour)" }
            for observation in observations where foldOf[observation.checkIn] == fold {
                guard let estimate = model.estimate(venue: observation.venue, at: observation.hour),
                    let byVenue = venueLevel.interval(for: observation, spreads: spreads),
                    let byKind = kindHour.interval(for: observation, spreads: spreads)
                else {
                    unpredicted += 1
                    continue
                }
                for (index, interval) in [(estimate.level, estimate.low, estimate.high), byVenue, byKind].enumerated() {
                    errors[index].append(abs(observation.level - interval.0))
                    if (interval.1...interval.2).contains(observation.level) { inside[index] += 1 }
                }
            }
        }
        let count = errors[0].count
        func score(_ index: Int) -> Score {
            count == 0 ? Score(meanAbsoluteError: .nan, coverage: .nan)
                : Score(meanAbsoluteError: errors[index].reduce(0, +) / Double(count), coverage: Double(inside[index]) / Double(count))
        }
        checkIns = foldOf.count
        self.folds = folds
        predicted = count
        self.unpredicted = unpredicted
        model = score(0)
        venueLevel = score(1)
        kindHour = score(2)
    }

    /// A baseline: the mean level of each group of observations, and the spread of its errors there.
    struct Baseline<Key: Hashable & Sendable> {
        let group: (HourObservation<Key>) -> String
        var means: [String: Double] = [:]
        var spread = 0.0

        init(_ observations: [HourObservation<Key>], group: @escaping (HourObservation<Key>) -> String) {
            self.group = group
            var sums: [String: (sum: Double, count: Int)] = [:]
            for observation in observations {
                sums[group(observation), default: (0, 0)].sum += observation.level
                sums[group(observation), default: (0, 0)].count += 1
            }
            means = sums.mapValues { $0.sum / Double($0.count) }
            let squares = observations.reduce(0.0) { sum, observation in
                let error = observation.level - means[group(observation)]!
                return sum + error * error
            }
            spread = observations.isEmpty ? 0 : (squares / Double(observations.count)).squareRoot()
        }

        /// The central level and the interval `spreads` of its errors wide either side; `nil` for a group it never saw.
        func interval(for observation: HourObservation<Key>, spreads: Double) -> (Double, Double, Double)? {
            guard let mean = means[group(observation)] else { return nil }
            return (mean, mean - spreads * spread, mean + spreads * spread)
        }
    }
}
