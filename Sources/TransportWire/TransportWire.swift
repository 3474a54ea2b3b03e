import Foundation

// What crosses between the client and its HTTP transport (`HearClearTransport`, a library loaded
// only by the commands that talk to a server), as bytes through a C function: the two sides share
// no Swift types at run time, only these documents.

/// One HTTP request.
public struct TransportRequest: Codable, Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?
    public var timeout: Double

    public init(method: String, url: URL, headers: [String: String], body: Data?, timeout: Double) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// Its answer, or why there was none.
public struct TransportResponse: Codable, Sendable {
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data
    /// Set when no answer came: the network's words.
    public var failure: String?

    public init(status: Int, headers: [String: String], body: Data, failure: String?) {
        self.status = status
        self.headers = headers
        self.body = body
        self.failure = failure
    }
}

/// The C signature of the transport's one entry point: a JSON `TransportRequest` in, and later, on
/// another thread, `done(context, JSON TransportResponse)`.
public typealias TransportSend = @convention(c) (
    UnsafePointer<UInt8>, Int, UnsafeMutableRawPointer, @convention(c) (UnsafeMutableRawPointer, UnsafePointer<UInt8>, Int) -> Void
) -> Void

public enum TransportLibrary {
    /// The entry point's symbol, and the library's file name next to the executables.
    public static let symbol = "hearclear_transport_send"
    public static let fileName = "libHearClearTransport.so"
}
