import Foundation

/// A loopback port kept for one test's servers while none of them listens on it: between a
/// server's stop and its restart on the same port, or between choosing a port and starting
/// nginx on it. Released, a port is the kernel's to hand out again, and with every end-to-end
/// suite running at once another test's outgoing connection once took one in that gap (the
/// restart failed: "port … is already in use").
///
/// It is a socket bound with `SO_REUSEADDR` that never listens: Linux then lets a server that
/// also sets `SO_REUSEADDR` (Hummingbird's default, nginx's too) bind and listen on the port, skips
/// it when it picks a port for anyone else, and refuses connections to it while nothing listens,
/// as a server that is down does.
public final class ReservedPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var on: Int32 = 1
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
                    && bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            if descriptor >= 0 { close(descriptor) }
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot reserve a loopback port"])
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
