import Foundation

/// A started ``EmbeddedPostgres`` server and how to reach it.
public struct RunningServer: Sendable {
    /// The server's configuration.
    public let embedded: EmbeddedPostgres
    let binaries: ServerBinaries
    /// The directory of the Unix socket.
    public let socketDirectory: String
    /// The port number in the socket's name.
    public let socketPort: Int
    /// The loopback TCP port, when the server listens on 127.0.0.1.
    public let tcpPort: Int?

    /// A libpq conninfo string for the superuser over the Unix socket.
    public func connectionString(database: String = "postgres") -> String {
        "host='\(socketDirectory)' port=\(socketPort) user=\(embedded.superuser) dbname='\(database)'"
    }

    /// A conninfo string over the loopback port (nil when the server listens only on its socket).
    /// TCP connections use password authentication (scram-sha-256).
    public func tcpConnectionString(user: String, password: String, database: String = "postgres") -> String? {
        guard let tcpPort else { return nil }
        return "host=127.0.0.1 port=\(tcpPort) user='\(user)' password='\(password)' dbname='\(database)'"
    }

    /// The directory of the server binaries in use (initdb, pg_ctl, psql when installed there).
    public var binDirectory: URL { binaries.directory }

    /// Stops the server.
    public func stop() throws { try embedded.stop() }
}
