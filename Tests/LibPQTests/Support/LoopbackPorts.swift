import EmbeddedPostgres

/// A loopback TCP port that nothing listens on (bound to port 0 by the kernel, then released).
func closedLoopbackPort() throws -> Int {
    try LoopbackSocket().port
}

/// A loopback TCP socket, optionally listening, that never accepts: connections to it complete
/// the TCP handshake and then hear nothing, like a server that hangs.
func loopbackListener(listen: Bool) throws -> LoopbackSocket {
    let socket = try LoopbackSocket()
    if listen { try socket.listen() }
    return socket
}
