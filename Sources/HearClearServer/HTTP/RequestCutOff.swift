import HTTPTypes
import Hummingbird

/// A request whose body ended before it was whole: its client went away, or the server's input
/// was closed once a stop's grace was over. `ConnectionGuard` has closed the connection by then,
/// so no answer reaches anyone: the request is logged as cut off rather than with a status it never
/// got, and what arrived of the body is never used (a form cut short can still decode, with a venue's
/// name or a calibration offset cut in two). Not an `HTTPResponseError`, which every middleware
/// on the way would make an answer of: `RequestLogMiddleware` is where it ends.
struct RequestCutOff: Error {}

extension Request {
    /// The whole body, at most `limit` bytes; `RequestCutOff` if it ends early.
    func collectWholeBody(upTo limit: Int) async throws -> ByteBuffer {
        let collected: ByteBuffer
        do {
            collected = try await body.collect(upTo: limit)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            throw RequestCutOff()
        }
        try checkWhole(received: collected.readableBytes)
        return collected
    }

    /// Throws `RequestCutOff` when fewer bytes arrived than `Content-Length` promised. Hummingbird's
    /// body ends without an error when the connection closes mid-body, so counting is how a handler
    /// tells a cut-off body from a whole one. (A chunked body cut off is not told apart here: what
    /// arrived fails to decode, or, gzipped, to match its length.)
    func checkWhole(received: Int) throws {
        if let promised = headers[.contentLength].flatMap(Int.init), received < promised { throw RequestCutOff() }
    }
}
