import Foundation

/// HTTP/1.1 over one plain TCP connection to 127.0.0.1, with nothing in between: for the
/// benchmarks' load generator and for tests of clients that misbehave on purpose (slow, stalled).
public final class LoopbackConnection: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let socket: Int32

    public init(port: Int) throws {
        socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = LoopbackSocket.address(port: port)
        var noDelay: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw Failure(description: "cannot connect to port \(port)")
        }
    }

    deinit {
        close(socket)
    }

    /// Sends the text; false once the other side has closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Foundation.send(socket, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Closes this side for sending (a half-close): the server reads the end of its input.
    public func finishSending() {
        shutdown(socket, Int32(SHUT_WR))
    }

    /// Whether the other side has sent something (or closed) within `timeout`.
    public func isReadable(within timeout: Duration) -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return poll(&descriptor, 1, milliseconds) > 0
    }

    public func readResponse() -> String {
        String(decoding: readResponseBytes(), as: UTF8.self)
    }

    /// Reads until the other side closes the connection or has sent a whole head and body.
    public func readResponseBytes() -> [UInt8] {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
            if let end = HTTPMessage.headEnd(received), received.count >= end + HTTPMessage.contentLength(received[..<end]) { break }
        }
        return received
    }

    /// Sends a request and reads its response on this kept-alive connection.
    public func exchange(_ request: [UInt8]) throws -> (status: Int, body: Data) {
        guard send(request) else { throw Failure(description: "the server closed the connection") }
        let response = readResponseBytes()
        guard let end = HTTPMessage.headEnd(response) else { throw Failure(description: "the server closed the connection") }
        let status = String(decoding: response[..<end], as: UTF8.self).split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, Data(response[end...]))
    }
}

/// Just enough HTTP/1.1 framing to find where a message ends.
public enum HTTPMessage {
    /// Where the head ends (after its blank line), once it has arrived.
    public static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    public static func contentLength(_ head: ArraySlice<UInt8>) -> Int {
        String(decoding: head, as: UTF8.self).lowercased().split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
    }
}

/// A value shared between threads or tasks, behind a lock.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}
