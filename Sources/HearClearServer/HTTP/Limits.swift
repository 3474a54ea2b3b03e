import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// The write-rate rule: `perMinute` writes a minute, in bursts of as many (a token bucket). Written
/// once here; the buckets it is applied to live where the deployment's servers can all see them
/// (`RateBuckets`).
enum TokenBucket {
    /// A bucket holding `tokens` (nil: a new, full bucket) `elapsed` seconds after it was last
    /// touched: its tokens after one write is taken, and how long to wait when none could be.
    static func take(tokens: Double?, elapsed: Double, perMinute limit: Int) -> (tokens: Double, wait: Duration?) {
        let available = available(tokens: tokens, elapsed: elapsed, perMinute: limit)
        guard available >= 1 else { return (available, wait(for: available, perMinute: limit)) }
        return (available - 1, nil)
    }

    /// The tokens a bucket holds `elapsed` seconds after it was last touched, refilled at the rate.
    static func available(tokens: Double?, elapsed: Double, perMinute limit: Int) -> Double {
        min(Double(limit), (tokens ?? Double(limit)) + max(0, elapsed) * Double(limit) / 60)
    }

    /// How long until a bucket holding `tokens` holds one.
    static func wait(for tokens: Double, perMinute limit: Int) -> Duration {
        .milliseconds(Int64((max(0, 1 - tokens) / (Double(limit) / 60) * 1000).rounded(.up)))
    }

    /// A bucket left alone this long is full again: no different from no bucket at all.
    static let fullAfter: Duration = .seconds(60)
}

/// Where the buckets of `TokenBucket` are kept, per key ("device:…", "address:…").
public protocol RateBuckets: Sendable {
    /// Takes one write from `key`'s bucket; when it is empty, how long until it holds one again.
    func take(_ key: String, perMinute: Int) async throws -> Duration?
    /// The tokens `key`'s bucket holds now, taking none: `perMinute` when it is full or unknown.
    func available(_ key: String, perMinute: Int) async throws -> Double
}

/// Buckets in this process's memory: the deployment of one server on SQLite. Buckets full again
/// (`TokenBucket.fullAfter`) are forgotten once there are many, so memory stays bounded by recent clients.
final class LocalRateBuckets: RateBuckets {
    private let buckets = Mutex<[String: (tokens: Double, updated: ContinuousClock.Instant)]>([:])
    private let now: @Sendable () -> ContinuousClock.Instant

    init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.now = now
    }

    func take(_ key: String, perMinute limit: Int) -> Duration? {
        let instant = now()
        return buckets.withLock { buckets in
            if buckets.count > 10_000 {
                buckets = buckets.filter { instant - $0.value.updated < TokenBucket.fullAfter }
            }
            let bucket = buckets[key]
            let taken = TokenBucket.take(tokens: bucket?.tokens, elapsed: bucket.map { (instant - $0.updated).inSeconds } ?? 0, perMinute: limit)
            buckets[key] = (taken.tokens, instant)
            return taken.wait
        }
    }

    func available(_ key: String, perMinute limit: Int) -> Double {
        let instant = now()
        return buckets.withLock { buckets in
            let bucket = buckets[key]
            return TokenBucket.available(tokens: bucket?.tokens, elapsed: bucket.map { (instant - $0.updated).inSeconds } ?? 0, perMinute: limit)
        }
    }
}

/// The write limits of the API: `perMinute` writes per device, ten times as many per client address.
struct RateLimiter: Sendable {
    let perMinute: Int
    let buckets: any RateBuckets

    static func tooManyRequests(retryAfter wait: Duration, who: String) -> HTTPError {
        let seconds = max(1, Int(wait.inSeconds.rounded(.up)))
        return HTTPError(.tooManyRequests, headers: [.retryAfter: "\(seconds)"], message: "too many writes from this \(who): retry in \(seconds) s")
    }
}

/// Limits writes per client address (ten times the per-device rate, for devices sharing an address).
struct AddressRateLimitMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let limiter: RateLimiter
    let trustedProxies: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let address = ClientAddress.of(request, peer: context.remoteAddress, trustedProxies: trustedProxies),
            let wait = try await limiter.buckets.take("address:\(address)", perMinute: limiter.perMinute * 10)
        {
            ServerMetrics.rateLimitedAddress.increment()
            throw RateLimiter.tooManyRequests(retryAfter: wait, who: "address")
        }
        return try await next(request, context)
    }
}

/// Who sent a request: the peer, unless the peer is a trusted proxy, in which case the nearest
/// address in `X-Forwarded-For` that is not a trusted proxy (nginx appends the address it saw, so
/// entries further left may be the client's own inventions).
enum ClientAddress {
    static func of(_ request: Request, peer: String?, trustedProxies: Set<String>) -> String? {
        guard let peer, trustedProxies.contains(peer) else { return peer }
        let forwarded = request.headers[values: .init("X-Forwarded-For")!].flatMap { $0.split(separator: ",") }
        for entry in forwarded.reversed() {
            guard let address = normalised(entry.trimmingCharacters(in: .whitespaces)) else { return peer }
            if !trustedProxies.contains(address) { return address }
        }
        return peer
    }

    /// An IP address as the server prints a peer's (so "::0001" and "::1" are one), or nil when
    /// `text` is not one; NIO parses it.
    static func normalised(_ text: String) -> String? {
        (try? SocketAddress(ipAddress: text, port: 0))?.ipAddress
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
