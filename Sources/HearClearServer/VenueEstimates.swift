import Foundation
import HearClearAnalysis
import Synchronization

/// The estimates for the hours nobody measured (`HourEstimates`, docs/analysis.md), fitted to every
/// counting check-in of the store. A fit reads every check-in's per-hour sums, too much to do for
/// each answer, and a kind's profile moves slowly: so the answers use the last fit, and a fit is
/// made again in the background once data changed and `refitInterval` has passed since the last.
/// Only the first answer waits for one. After each fit every venue's cached answers are let go
/// (`VenueChangeFeed.touchAnswers`), so they are made again with it.
final class VenueEstimates: Sendable {
    private struct State {
        var fitted: HourEstimates?
        var fittedAt: ContinuousClock.Instant?
        /// The feed's data changes the fit saw.
        var dataChanges: UInt64 = 0
        var fitting: Task<HourEstimates, any Error>?
    }

    let repository: any Repository
    let changes: VenueChangeFeed
    let parameters: EstimateParameters
    let refitInterval: Duration
    private let state = Mutex(State())

    init(repository: any Repository, changes: VenueChangeFeed, parameters: EstimateParameters, refitInterval: Duration) {
        self.repository = repository
        self.changes = changes
        self.parameters = parameters
        self.refitInterval = refitInterval
    }

    /// The last fit; the first call waits for one.
    func current() async throws -> HourEstimates {
        let (fitted, fitting) = state.withLock { state -> (HourEstimates?, Task<HourEstimates, any Error>?) in
            if let fitted = state.fitted {
                if state.fitting == nil, changes.dataChanges != state.dataChanges, ContinuousClock.now - state.fittedAt! >= refitInterval {
                    state.fitting = fit()
                }
                return (fitted, nil)
            }
            if state.fitting == nil { state.fitting = fit() }
            return (nil, state.fitting)
        }
        if let fitted { return fitted }
        return try await fitting!.value
    }

    /// A fit, under way; called with the state locked.
    private func fit() -> Task<HourEstimates, any Error> {
        // Read before the data, so that a change landing meanwhile brings another fit later.
        let seen = changes.dataChanges
        return Task {
            do {
                let model = HourEstimates(observations: try await repository.hourObservations(), parameters: parameters)
                state.withLock { state in
                    state.fitted = model
                    state.fittedAt = .now
                    state.dataChanges = seen
                    state.fitting = nil
                }
                changes.touchAnswers()
                return model
            } catch {
                state.withLock { $0.fitting = nil }
                throw error
            }
        }
    }
}
