import Foundation

/// A TCP socket bound to a free loopback port (the kernel picks it), closed when released: how the
/// embedded server finds a port, and how the tests make a port that refuses or never answers.
package final class LoopbackSocket {
    private var descriptor: Int32
    /// The port the socket is bound to.
    package let port: Int

    package init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw EmbeddedPostgresError(message: "cannot open a loopback socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { [descriptor] in
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            _ = Glibc.close(descriptor)
            throw EmbeddedPostgresError(message: "cannot bind a loopback socket to a free port")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { [descriptor] in
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts connections into the backlog (never accepting them): a client completes the TCP
    /// handshake and then hears nothing, as from a server that hangs.
    package func listen() throws {
        guard Glibc.listen(descriptor, 16) == 0 else { throw EmbeddedPostgresError(message: "cannot listen on port \(port)") }
    }

    /// Releases the port.
    package func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}
