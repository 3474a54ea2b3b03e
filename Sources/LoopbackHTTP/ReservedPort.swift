import Foundation

/// A loopback port kept for one test's servers while none of them listens on it: between a
/// server's stop and its restart on the same port, or between choosing a port and starting
/// nginx on it. Released, a port is the kernel's to hand out again, and with every end-to-end
/// suite running at once another socket once took one in that gap (the restart failed: "port …
/// is already in use").
///
/// It is a socket bound with `SO_REUSEADDR` that never listens: Linux then lets a server that
/// also sets `SO_REUSEADDR` (Hummingbird's default, nginx's too) bind and listen on the port, skips
/// it when it picks a port for anyone else, and refuses connections to it while nothing listens,
/// as a server that is down does.
public final class ReservedPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        guard let (descriptor, port) = LoopbackSocket.bound(reusingAddress: true) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot reserve a loopback port"])
        }
        self.descriptor = descriptor
        self.port = port
    }

    deinit {
        close(descriptor)
    }
}
