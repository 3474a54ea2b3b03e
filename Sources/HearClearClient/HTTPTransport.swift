import Foundation
import TransportWire

/// The client's way to HTTP: `HearClearTransport` (URLSession over libcurl), a library next to the
/// executable that is loaded the first time a command sends a request. Linked in, FoundationNetworking
/// and libcurl with its TLS and codec libraries were loaded by every `hearclear` process, `analyze`
/// and `meter` included, which never talk to a server (`make bench`'s meter case: 32.5 MB peak with
/// them, 26.8 without).
enum HTTPTransport {
    /// The entry point, or why it could not be loaded (said once a command needs the network).
    static let entry: Result<TransportSend, APIClient.Failure> = load()

    static func load() -> Result<TransportSend, APIClient.Failure> {
        let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let folder = executable.deletingLastPathComponent()
        let candidates = [folder.appendingPathComponent(TransportLibrary.fileName), folder.appendingPathComponent("../lib/\(TransportLibrary.fileName)")]
        var reasons: [String] = []
        for path in candidates.map(\.standardizedFileURL.path) {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? path)
                continue
            }
            guard let symbol = dlsym(handle, TransportLibrary.symbol) else {
                reasons.append("\(path) has no \(TransportLibrary.symbol)")
                continue
            }
            return .success(unsafeBitCast(symbol, to: TransportSend.self))
        }
        return .failure(.network("the HTTP library \(TransportLibrary.fileName) is missing from this installation (\(reasons.joined(separator: "; ")))"))
    }

    /// Sends a request and waits for its answer.
    static func send(_ request: TransportRequest) async throws -> TransportResponse {
        let send = try entry.get()
        let bytes = try JSONEncoder().encode(request)
        let response: Data = await withCheckedContinuation { continuation in
            let context = Unmanaged.passRetained(Pending(continuation)).toOpaque()
            bytes.withUnsafeBytes { raw in
                send(raw.bindMemory(to: UInt8.self).baseAddress!, raw.count, context) { context, answer, count in
                    Unmanaged<Pending>.fromOpaque(context).takeRetainedValue().continuation.resume(returning: Data(bytes: answer, count: count))
                }
            }
        }
        guard let decoded = try? JSONDecoder().decode(TransportResponse.self, from: response) else {
            throw APIClient.Failure.network("the HTTP library answered something unreadable")
        }
        return decoded
    }

    /// A request's continuation while the transport holds it.
    final class Pending {
        let continuation: CheckedContinuation<Data, Never>

        init(_ continuation: CheckedContinuation<Data, Never>) {
            self.continuation = continuation
        }
    }
}
