import Foundation
import LoopbackHTTP

/// A proxy in front of a real server that spoils check-in uploads on purpose, one way per upload
/// in turn, to show the client retries instead of losing or duplicating anything. Everything else
/// passes through.
final class FlakyProxy: @unchecked Sendable {
    enum Spoil {
        /// Answer 500 without asking the server.
        case serverError
        /// Close the connection without forwarding the upload: lost on the way.
        case dropRequest
        /// Forward to the server, then close the connection instead of answering: stored, not acknowledged.
        case dropAnswer
        /// Forward to the server and keep the client waiting until `release()`.
        case hold
        case pass
    }

    let port: Int
    private let upstream: Int
    private let listener: Int32
    private let spoils: Locked<[Spoil]>
    let uploads = Locked(0)
    private let held = DispatchSemaphore(value: 0)
    private let holding = DispatchSemaphore(value: 0)

    init(upstream: Int, spoils: [Spoil]) throws {
        self.upstream = upstream
        self.spoils = Locked(spoils)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "the proxy cannot listen"]) }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in
            while case let client = accept(listener, nil, nil), client >= 0 {
                Thread { self.serve(client) }.start()
            }
        }.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Blocks until an upload is being held.
    func waitUntilHolding() { holding.wait() }

    func release() { held.signal() }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard let request = Self.readRequest(client) else { return }
        var spoil = Spoil.pass
        if request.starts(with: Array("POST /api/v1/checkins".utf8)) {
            uploads.withLock { $0 += 1 }
            spoil = spoils.withLock { $0.isEmpty ? .pass : $0.removeFirst() }
        }
        if case .dropRequest = spoil { return }
        if case .serverError = spoil {
            Self.write(client, Array("HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: 41\r\nConnection: close\r\n\r\n{\"error\": {\"message\": \"spoiled on purpose\"}}".utf8))
            return
        }
        guard let server = try? LoopbackConnection(port: upstream) else { return }
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
        Self.write(client, answer)
    }

    /// The request head and its Content-Length body.
    private static func readRequest(_ client: Int32) -> [UInt8]? {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = HTTPMessage.headEnd(received), received.count >= end + HTTPMessage.contentLength(received[..<end]) {
                return received
            }
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            received += buffer[0..<count]
        }
    }

    private static func write(_ client: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
