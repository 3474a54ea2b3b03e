import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// How many connections each client address holds open, so that one address cannot take every
/// file descriptor the server has: past `limit`, its new connections are closed at once. Trusted
/// proxies are not counted (every client behind nginx shares its address; nginx limits its own).
final class ConnectionCounts: Sendable {
    let limit: Int
    let exempt: Set<String>
    private let open = Mutex<[String: Int]>([:])

    init(limit: Int, exempt: Set<String>) {
        self.limit = limit
        self.exempt = exempt
    }

    /// Counts a new connection from `address`; false when that address already holds `limit`.
    func admit(_ address: String) -> Bool {
        guard !exempt.contains(address) else { return true }
        return open.withLock { open in
            let count = open[address, default: 0]
            guard count < limit else { return false }
            open[address] = count + 1
            return true
        }
    }

    func release(_ address: String) {
        guard !exempt.contains(address) else { return }
        open.withLock { open in
            let count = open[address, default: 0] - 1
            open[address] = count > 0 ? count : nil
        }
    }
}

/// The first handler after HTTP decoding on every connection: it admits the connection by its
/// address (`ConnectionCounts`), and answers what the HTTP parser could not read with a 400 that
/// says so (Hummingbird's own has an empty body) before closing; a request cut off by the end of
/// the input gets no answer.
///
/// Inbound only: it reads nothing of the requests themselves, and each handler a part passes
/// through costs every request.
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let counts: ConnectionCounts
    private var counted: String?

    init(counts: ConnectionCounts) {
        self.counts = counts
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard counted == nil, let address = context.channel.remoteAddress?.ipAddress else { return }
        guard counts.admit(address) else {
            ServerMetrics.connectionsRefused.increment()
            context.close(promise: nil)
            return
        }
        counted = address
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    private func release() {
        if let address = counted { counts.release(address) }
        counted = nil
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        // Input that ends inside a request (the client went away, or the server stopping closed its
        // input once the grace was over) is no invalid request: a 400 would have a client set aside
        // an upload that was fine. Without an answer, it sends it again.
        guard parserError != .invalidEOFState else {
            ServerMetrics.requestsCutOff.increment()
            return context.close(promise: nil)
        }
        let body = ByteBuffer(string: #"{"error":{"message":"the request is not valid HTTP/1.1 (\#(Self.words(parserError))): the connection is closed"}}"#)
        let head = HTTPResponse(
            status: .badRequest,
            headerFields: [.contentType: "application/json; charset=utf-8", .contentLength: "\(body.readableBytes)", .connection: "close"])
        context.write(NIOAny(HTTPResponsePart.head(head)), promise: nil)
        context.write(NIOAny(HTTPResponsePart.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// What the parser refused, in words a client's author can act on.
    static func words(_ error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow: "its head is larger than the server accepts"
        case .invalidHeaderToken: "a header name or value holds a character HTTP does not allow"
        case .invalidContentLength, .unexpectedContentLength: "its Content-Length is not a number the body agrees with"
        case .invalidMethod: "its method is not valid"
        case .invalidURL: "its path is not valid"
        case .invalidVersion: "its HTTP version is not valid"
        default: "it could not be parsed"
        }
    }
}
