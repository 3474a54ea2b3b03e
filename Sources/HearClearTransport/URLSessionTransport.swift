import Foundation
import TransportWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// HTTP through URLSession (libcurl on Linux), in a library of its own: loading FoundationNetworking
// and libcurl costs a process about 6 MB of peak memory (`make bench`'s meter case), which only the
// commands that talk to a server should pay (`hearclear analyze` and `meter` never do). The client
// loads this library when it first sends.

/// Sends one request (`TransportWire`), answering through `done` on a URLSession thread.
@_cdecl("hearclear_transport_send")
public func hearclearTransportSend(
    _ bytes: UnsafePointer<UInt8>, _ count: Int, _ context: UnsafeMutableRawPointer,
    _ done: @escaping @convention(c) (UnsafeMutableRawPointer, UnsafePointer<UInt8>, Int) -> Void
) {
    let answer = Reply(context: context, done: done)
    guard let request = try? JSONDecoder().decode(TransportRequest.self, from: Data(bytes: bytes, count: count)) else {
        return answer(TransportResponse(status: 0, headers: [:], body: Data(), failure: "the request could not be read"))
    }
    var urlRequest = URLRequest(url: request.url)
    urlRequest.httpMethod = request.method
    urlRequest.timeoutInterval = request.timeout
    for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
    urlRequest.httpBody = request.body
    session.dataTask(with: urlRequest) { data, response, error in
        guard let http = response as? HTTPURLResponse else {
            return answer(TransportResponse(status: 0, headers: [:], body: Data(), failure: error?.localizedDescription ?? "not an HTTP answer"))
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        answer(TransportResponse(status: http.statusCode, headers: headers, body: data ?? Data(), failure: nil))
    }.resume()
}

/// Where an answer goes: the caller's context, handed back with the answer once, from whichever
/// thread URLSession answers on (the caller resumes a continuation with it).
struct Reply: @unchecked Sendable {
    let context: UnsafeMutableRawPointer
    let done: @convention(c) (UnsafeMutableRawPointer, UnsafePointer<UInt8>, Int) -> Void

    func callAsFunction(_ response: TransportResponse) {
        let data = (try? JSONEncoder().encode(response)) ?? Data(#"{"status":0,"headers":{},"body":"","failure":"the answer could not be encoded"}"#.utf8)
        data.withUnsafeBytes { done(context, $0.bindMemory(to: UInt8.self).baseAddress!, data.count) }
    }
}

/// One session for the process, so a sync of many check-ins keeps its connection alive; each
/// request carries its own timeout.
private let session = URLSession(configuration: .ephemeral, delegate: RedirectRefusal(), delegateQueue: nil)

/// Declines every redirect, so its target never receives a request (nor the token).
final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
