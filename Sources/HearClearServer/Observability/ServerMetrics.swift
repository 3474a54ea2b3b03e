import Foundation
import HearClearCore
import Metrics

/// The server's own measures, through swift-metrics (Prometheus in `hearclear-server serve`, a
/// no-op where nothing is bootstrapped, as in the router tests). Requests by route and status and
/// their durations are `RequestMetrics`'.
enum ServerMetrics {
    static func checkInStored(status: CheckInStatus, api: String, samples: Int, dropped: Int) {
        Counter(label: "hearclear_checkins_stored_total", dimensions: [("status", status.rawValue), ("api", api)]).increment()
        samplesStored.increment(by: samples)
        samplesDropped.increment(by: dropped)
    }

    static let samplesStored = Counter(label: "hearclear_samples_stored_total")
    /// Spikes the filter left out.
    static let samplesDropped = Counter(label: "hearclear_samples_dropped_total")
    /// Check-ins whose status became "outlier" when the rule was applied again (at ingest, or after a change).
    static let outliersDecided = Counter(label: "hearclear_outlier_decisions_total")

    static let rateLimitedDevice = Counter(label: "hearclear_rate_limited_total", dimensions: [("scope", "device")])
    static let rateLimitedAddress = Counter(label: "hearclear_rate_limited_total", dimensions: [("scope", "address")])
    static let uploadsTurnedAway = Counter(label: "hearclear_uploads_turned_away_total")
    /// Wrong admin passwords, and admin requests refused unchecked after too many of them.
    static let adminLoginFailures = Counter(label: "hearclear_admin_login_failures_total")
    static let adminLoginsThrottled = Counter(label: "hearclear_admin_logins_throttled_total")
    /// Connections closed at once because their address held `max_connections_per_address` already.
    static let connectionsRefused = Counter(label: "hearclear_connections_refused_total")
    /// Requests whose connection's input ended inside them (the client went away, or the stopping
    /// server closed it), closed unanswered: the access log has no line for one cut off in its head.
    static let requestsCutOff = Counter(label: "hearclear_requests_cut_off_total")

    static let answerCacheHits = Counter(label: "hearclear_answer_cache_total", dimensions: [("result", "hit")])
    static let answerCacheMisses = Counter(label: "hearclear_answer_cache_total", dimensions: [("result", "miss")])

    /// How long the store's transaction storing a check-in took.
    static let storeCheckInTransaction = Timer(
        label: "hearclear_store_transaction_seconds", dimensions: [("operation", "store_checkin")], preferredDisplayUnit: .seconds)
}
