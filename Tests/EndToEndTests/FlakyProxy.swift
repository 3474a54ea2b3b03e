import Foundation
import LoopbackHTTP

/// A proxy in front of a real server that spoils check-in uploads on purpose, one way per upload
/// in turn, to show the client retries instead of losing or duplicating anything. Everything else
/// passes through.
final class FlakyProxy: @unchecked Sendable {
    enum Spoil {
        /// Answer 500 without asking the server.
        case serverError
        /// Answer 408, as a server does when a body arrives too slowly, without asking the server.
        case bodyTooSlow
        /// Close the connection without forwarding the upload: lost on the way.
        case dropRequest
        /// Forward to the server, then close the connection instead of answering: stored, not acknowledged.
        case dropAnswer
        /// Forward to the server and keep the client waiting until `release()`. Uploads meanwhile
        /// (a client whose wait timed out, on a machine so loaded that the test has not yet acted
        /// on the hold) are lost on the way, so the held one stays the last the client sent.
        case hold
        case pass
    }

    /// Answers API v2 uploads 404, as a server older than v2 does, counting them.
    var olderServer = false
    let versionTwoUploads = Locked(0)

    var port: Int { listener.port }
    private let upstream: Int
    private var listener: LoopbackListener!
    private let spoils: Locked<[Spoil]>
    let uploads = Locked(0)
    private let held = DispatchSemaphore(value: 0)
    private let isHolding = Locked(false)
    private let holding = DispatchSemaphore(value: 0)

    init(upstream: Int, spoils: [Spoil]) throws {
        self.upstream = upstream
        self.spoils = Locked(spoils)
        listener = try LoopbackListener { [unowned self] client in self.serve(client) }
    }

    /// Blocks until an upload is being held.
    func waitUntilHolding() { holding.wait() }

    func release() {
        isHolding.withLock { $0 = false }
        held.signal()
    }

    private func serve(_ client: Int32) {
        guard let request = LoopbackListener.readRequest(client) else { return }
        var spoil = Spoil.pass
        if request.starts(with: Array("POST /api/v2/checkins".utf8)) {
            versionTwoUploads.withLock { $0 += 1 }
            if olderServer {
                LoopbackListener.write(client, Array("HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 33\r\nConnection: close\r\n\r\n{\"error\":{\"message\":\"Not Found\"}}".utf8))
                return
            }
        }
        if request.starts(with: Array("POST /api/v1/checkins".utf8)) || request.starts(with: Array("POST /api/v2/checkins".utf8)) {
            uploads.withLock { $0 += 1 }
            spoil = isHolding.withLock { $0 } ? .dropRequest : spoils.withLock { $0.isEmpty ? .pass : $0.removeFirst() }
            if case .hold = spoil { isHolding.withLock { $0 = true } }
        }
        if case .dropRequest = spoil { return }
        if case .serverError = spoil {
            LoopbackListener.write(client, Array("HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: 44\r\nConnection: close\r\n\r\n{\"error\": {\"message\": \"spoiled on purpose\"}}".utf8))
            return
        }
        if case .bodyTooSlow = spoil {
            let body = #"{"error": {"message": "the request body took too long to arrive"}}"#
            LoopbackListener.write(
                client, Array("HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8))
            return
        }
        guard let server = try? LoopbackConnection(port: upstream) else {
            // As nginx answers for a server that is down.
            let page = "<html><body><h1>502 Bad Gateway</h1></body></html>"
            LoopbackListener.write(
                client, Array("HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: \(page.utf8.count)\r\nConnection: close\r\n\r\n\(page)".utf8))
            return
        }
        var forwarded = request
        if let head = HTTPMessage.headEnd(forwarded) {  // one request per connection
            forwarded.insert(contentsOf: Array("Connection: close\r\n".utf8), at: head - 2)
        }
        server.send(forwarded)
        let answer = server.readResponseBytes()
        switch spoil {
        case .dropAnswer: return
        case .hold:
            holding.signal()
            held.wait()
        default: break
        }
        LoopbackListener.write(client, answer)
    }

}
