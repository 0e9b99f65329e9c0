import Foundation
import PostgresTestSupport

/// A loopback TCP port that nothing listens on (bound to port 0 by the kernel, then released).
func closedLoopbackPort() throws -> Int {
    let listener = try LoopbackListener(listen: false)
    let port = listener.port
    listener.close()
    return port
}

/// A loopback TCP socket, optionally listening, that never accepts: connections to it complete
/// the TCP handshake and then hear nothing, like a server that hangs.
final class LoopbackListener {
    private var descriptor: Int32
    let port: Int

    init(listen shouldListen: Bool) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        guard descriptor >= 0 else { throw TestFailure("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw TestFailure("bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        if shouldListen, Glibc.listen(descriptor, 16) != 0 { throw TestFailure("listen() failed") }
    }

    func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}
