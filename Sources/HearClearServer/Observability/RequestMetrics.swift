import HTTPTypes
import Metrics
import Synchronization

/// Requests by route template, method and status, and their durations, under the names
/// Hummingbird's `MetricsMiddleware` uses (`hb_requests`, `http_server_request_duration`). Written
/// here because that middleware, with its in-flight gauge, two locked caches and a closure per
/// answer, was the largest middleware cost left on every request (docs/profiling.md).
final class RequestMetrics: Sendable {
    private struct Key: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    private let handles = Mutex<[Key: (requests: Counter, duration: Timer)]>([:])

    func record(route: String, method: HTTPRequest.Method, status: Int, elapsed: Duration) {
        let key = Key(route: route, method: method, status: status)
        let handle = handles.withLock { handles in
            if let handle = handles[key] { return handle }
            let dimensions = [("http.route", route), ("http.request.method", method.rawValue), ("http.response.status_code", "\(status)")]
            let handle = (Counter(label: "hb.requests", dimensions: dimensions), Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds))
            handles[key] = handle
            return handle
        }
        handle.requests.increment()
        handle.duration.recordSeconds(elapsed.inSeconds)
    }
}
