import Foundation
import HearClearAnalysis
import HearClearCore
import Testing

/// The estimates for hours nobody measured (`HourEstimates`), against check-ins drawn from a known
/// truth (`SyntheticVenues`) and against the two baselines of `EstimateEvaluation`.
@Suite struct EstimateTests {
    /// 10 % and 20 % of the week's hours measured, seeds fixed: the model's error is at least 30 %
    /// below the better baseline's, and its 80 % intervals hold 75–85 % of the held-out levels.
    @Test(arguments: [(UInt64(1), 0.1), (2, 0.15), (3, 0.2)])
    func estimatesBeatBothBaselinesAndTheirIntervalsHoldWhatTheySay(seed: UInt64, share: Double) {
        let data = SyntheticVenues(seed: seed, measuredShare: share)
        let evaluation = EstimateEvaluation(observations: data.observations)
        let figures = "\(evaluation)"
        #expect(evaluation.predicted > 1000, "\(figures)")
        #expect(evaluation.improvement >= 0.3, "\(figures)")
        #expect((0.75...0.85).contains(evaluation.model.coverage), "\(figures)")
    }

    /// Was: "The estimate's error is -3 % below the better baseline's" on `make demo`'s database,
    /// where the estimate did a little worse than the kind's hour.
    @Test func theComparisonWithTheBetterBaselineReadsInEitherDirection() {
        var evaluation = EstimateEvaluation(observations: SyntheticVenues(seed: 1, measuredShare: 0.1).observations)
        (evaluation.venueLevel.meanAbsoluteError, evaluation.kindHour.meanAbsoluteError) = (3.42, 1.74)
        evaluation.model.meanAbsoluteError = 1.79
        #expect(evaluation.comparison == "The estimate's error is 3 % above the better baseline's (the kind's hour).")
        evaluation.model.meanAbsoluteError = 1.044
        #expect(evaluation.comparison == "The estimate's error is 40 % below the better baseline's (the kind's hour).")
        evaluation.kindHour.meanAbsoluteError = 4
        evaluation.model.meanAbsoluteError = 3.42
        #expect(evaluation.comparison == "The estimate's error is the better baseline's (the venue's level).")
    }

    /// The estimate of an hour nobody measured lies near the truth, closer than the venue's level.
    @Test func anUnmeasuredHourIsEstimatedNearItsTruth() {
        let data = SyntheticVenues(seed: 4)
        let model = HourEstimates(observations: data.observations)
        let measured = Set(data.observations.map { "\($0.venue) \($0.hour.weekday) \($0.hour.hour)" })
        var errors: [Double] = []
        for (venue, truth) in data.truth {
            for index in 0..<168 where !measured.contains("\(venue) \(index / 24) \(index % 24)") {
                // Hours when no venue of its kind was measured nearby (closed) have none.
                guard let estimate = model.estimate(venue: venue, at: LocalHour(weekday: index / 24, hour: index % 24)) else { continue }
                errors.append(abs(estimate.level - truth[index]))
                #expect(estimate.low < estimate.level && estimate.level < estimate.high)
            }
        }
        #expect(errors.count > 60 * 168 / 3)
        #expect(errors.reduce(0, +) / Double(errors.count) < 3)
    }

    /// Cafés close at 19:00 and clubs open at 21:00 in the synthetic set: nobody measured either
    /// at 3:00 and at noon respectively, so neither gets an estimate then, not a quiet one.
    @Test func anHourNoVenueOfItsKindWasMeasuredNearGetsNoEstimate() {
        let model = HourEstimates(observations: SyntheticVenues(seed: 7).observations)
        #expect(model.estimate(venue: "cafe-0", at: LocalHour(weekday: 2, hour: 3)) == nil)
        #expect(model.estimate(venue: "club-0", at: LocalHour(weekday: 2, hour: 12)) == nil)
        #expect(model.estimate(venue: "cafe-0", at: LocalHour(weekday: 2, hour: 12)) != nil)
        #expect(model.estimate(venue: "club-0", at: LocalHour(weekday: 5, hour: 23)) != nil)
    }

    @Test func aVenueWithoutACheckInGetsNoEstimate() {
        let model = HourEstimates(observations: SyntheticVenues(seed: 5).observations)
        #expect(model.estimate(venue: "nowhere", at: LocalHour(weekday: 4, hour: 20)) == nil)
    }

    /// More check-ins at and around an hour narrow its interval.
    @Test func checkInsNearAnHourNarrowItsInterval() {
        let data = SyntheticVenues(seed: 6)
        let hour = LocalHour(weekday: 4, hour: 21)
        let before = try! #require(HourEstimates(observations: data.observations).estimate(venue: "pub-0", at: hour))
        let more = data.observations + (0..<6).map {
            HourObservation(venue: "pub-0", kind: .pub, checkIn: 100_000 + $0, hour: hour, level: data.truth["pub-0"]![4 * 24 + 21])
        }
        let after = try! #require(HourEstimates(observations: more).estimate(venue: "pub-0", at: hour))
        #expect(after.high - after.low < before.high - before.low)
    }

    @Test func theParametersReadFromTheConfigAndRefuseNonsense() throws {
        let read = try JSONDecoder().decode(EstimateParameters.self, from: Data(#"{"similar_day_weight": 0.25}"#.utf8))
        #expect(read.similarDayWeight == 0.25 && read.neighbourHourWeight == EstimateParameters.standard.neighbourHourWeight)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(EstimateParameters.self, from: Data(#"{"profile_prior_checkins": 0}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(EstimateParameters.self, from: Data(#"{"similar_day_weight": -1}"#.utf8)) }
    }
}
