import EmbeddedPostgres
import LibPQ
import Testing

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

/// Connects to a loopback server that completes the TCP handshake and then hears nothing
/// (`options` appended to the connection string), and returns the error the connection fails with,
/// how long it waited, and the server's port.
func connectToSilentServer(
    options: String = "", connectTimeout: Int, sourceLocation: SourceLocation = #_sourceLocation
) throws -> (error: PQError, elapsed: Duration, port: Int) {
    let listener = try loopbackListener(listen: true)
    defer { listener.close() }
    let start = ContinuousClock.now
    let error = try expectPostgresError(sourceLocation: sourceLocation) {
        _ = try Connection("host=127.0.0.1 port=\(listener.port) sslmode=disable gssencmode=disable" + options, connectTimeout: connectTimeout)
    }
    return (error, ContinuousClock.now - start, listener.port)
}
