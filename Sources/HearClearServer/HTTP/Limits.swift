import Foundation
import Hummingbird
import Synchronization

/// Token buckets per key ("device:…", "address:…"): `perMinute` writes a minute, in bursts of as
/// many. Buckets idle for ten minutes are forgotten, so memory stays bounded by recent clients.
final class RateLimiter: Sendable {
    let perMinute: Int
    private let buckets = Mutex<[String: (tokens: Double, updated: ContinuousClock.Instant)]>([:])
    private let now: @Sendable () -> ContinuousClock.Instant

    init(perMinute: Int, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.perMinute = perMinute
        self.now = now
    }

    /// Takes one write from `key`'s bucket; when it is empty, how long until it holds one again.
    func take(_ key: String, perMinute limit: Int) -> Duration? {
        let instant = now()
        return buckets.withLock { buckets in
            if buckets.count > 10_000 {
                buckets = buckets.filter { instant - $0.value.updated < .seconds(600) }
            }
            let rate = Double(limit) / 60
            var bucket = buckets[key] ?? (Double(limit), instant)
            bucket.tokens = min(Double(limit), bucket.tokens + (instant - bucket.updated).inSeconds * rate)
            bucket.updated = instant
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return .milliseconds(Int64(((1 - bucket.tokens) / rate * 1000).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }

    static func tooManyRequests(retryAfter wait: Duration, who: String) -> HTTPError {
        let seconds = max(1, Int(wait.inSeconds.rounded(.up)))
        return HTTPError(.tooManyRequests, headers: [.retryAfter: "\(seconds)"], message: "too many writes from this \(who): retry in \(seconds) s")
    }
}

/// Limits writes per client address (ten times the per-device rate, for devices sharing an address).
struct AddressRateLimitMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let address = context.remoteAddress, let wait = limiter.take("address:\(address)", perMinute: limiter.perMinute * 10) {
            ServerMetrics.rateLimitedAddress.increment()
            throw RateLimiter.tooManyRequests(retryAfter: wait, who: "address")
        }
        return try await next(request, context)
    }
}

/// How many uploads are being handled; past the cap, more are turned away at once rather than
/// queued, so a burst cannot pile up memory.
final class UploadGate: Sendable {
    let capacity: Int
    private let inFlight = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    func run<Value>(_ body: () async throws -> Value) async throws -> Value {
        guard inFlight.add(1, ordering: .relaxed).newValue <= capacity else {
            inFlight.subtract(1, ordering: .relaxed)
            ServerMetrics.uploadsTurnedAway.increment()
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: "the server is handling \(capacity) uploads already: retry in a second")
        }
        defer { inFlight.subtract(1, ordering: .relaxed) }
        return try await body()
    }
}

extension Duration {
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
