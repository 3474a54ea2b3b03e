import Foundation
import LoopbackHTTP

/// A TCP listener on a free loopback port that hands each connection to `serve` on its own
/// thread: the base of the tests' proxies and stub servers.
final class LoopbackListener: @unchecked Sendable {
    let port: Int
    private let descriptor: Int32

    init(serve: @escaping @Sendable (Int32) -> Void) throws {
        guard let (descriptor, port) = LoopbackSocket.bound(backlog: 64) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot listen on loopback"])
        }
        self.descriptor = descriptor
        self.port = port
        Thread {
            while case let client = accept(descriptor, nil, nil), client >= 0 {
                Thread {
                    defer { close(client) }
                    serve(client)
                }.start()
            }
        }.start()
    }

    deinit {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }

    /// The request head and its Content-Length body.
    static func readRequest(_ client: Int32) -> [UInt8]? {
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

    static func write(_ client: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}

/// Answers every request with the same canned HTTP answer and keeps the requests' heads: a
/// captive portal, a proxy's 404, a server that redirects elsewhere.
final class StubServer: @unchecked Sendable {
    private var listener: LoopbackListener!
    let requests = Locked<[String]>([])
    var port: Int { listener.port }
    var url: String { "http://127.0.0.1:\(port)" }

    init(status: String, headers: [String] = [], body: String = "") throws {
        let answer = Array(
            (["HTTP/1.1 \(status)", "Content-Length: \(body.utf8.count)", "Connection: close"] + headers).joined(separator: "\r\n").utf8)
            + Array("\r\n\r\n\(body)".utf8)
        listener = try LoopbackListener { [requests] client in
            guard let request = LoopbackListener.readRequest(client) else { return }
            let head = HTTPMessage.headEnd(request).map { String(decoding: request[..<$0], as: UTF8.self) } ?? ""
            requests.withLock { $0.append(head) }
            LoopbackListener.write(client, answer)
        }
    }
}
