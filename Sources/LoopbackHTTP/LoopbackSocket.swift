import Foundation

/// The socket calls the loopback helpers share (the listener and stub servers of the tests, the
/// reserved ports, the load generator's connections): no library here speaks plain BSD sockets,
/// and these need no more than an address on 127.0.0.1.
public enum LoopbackSocket {
    /// 127.0.0.1:`port`, as the socket calls take it.
    public static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// A new TCP socket bound to 127.0.0.1:`port` (0: one the kernel picks), listening with
    /// `backlog` if one is given: its descriptor and the port it has, or nil (nothing left open)
    /// if a call failed. `reusingAddress` sets `SO_REUSEADDR` before binding.
    public static func bound(port: Int = 0, reusingAddress: Bool = false, backlog: Int32? = nil) -> (descriptor: Int32, port: Int)? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var on: Int32 = 1
        var address = address(port: port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                (!reusingAddress || setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) == 0)
                    && bind(descriptor, $0, length) == 0 && (backlog.map { listen(descriptor, $0) == 0 } ?? true)
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            return nil
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether a socket can bind the loopback `port` now (as another process's connection or server
    /// could take a port left free), released at once: what a reserved port must refuse.
    public static func canBind(_ port: Int) -> Bool {
        guard let (descriptor, _) = bound(port: port) else { return false }
        close(descriptor)
        return true
    }
}
