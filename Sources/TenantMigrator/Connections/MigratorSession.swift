import Foundation
import LibPQ
import Logging

/// How the migrator opens its sessions: the one place that does.
///
/// Every session runs with `search_path = pg_catalog, pg_temp`, so no function, operator or type
/// that an untrusted role planted in `public` or in a tenant schema can capture an unqualified name
/// in the migrator's SQL (docs/Security.md). Connecting retries, with backoff, while the server is
/// unreachable or starting or shutting down, for at most ``reconnectTimeout``: a server restart in
/// the middle of a fleet run costs a pause, not the rest of the fleet.
public struct MigratorSession: Sendable {
    /// The schemas every migrator session searches, in order.
    public static let searchPath = ["pg_catalog", "pg_temp"]

    /// Builds a session when the app supplies its own connections (see ``init(factory:reconnectTimeout:logger:)``).
    public typealias Factory = @Sendable () async throws -> AsyncConnection

    /// The conninfo string or URI sessions are opened with ("" with a factory).
    public var connectionString: String
    /// The session's `application_name` (unless the connection string names one).
    public var applicationName: String
    /// How long connecting keeps retrying a server that is down or restarting. Zero tries once.
    public var reconnectTimeout: Duration
    public var logger: Logger
    /// The app's own connection factory, when sessions come from it.
    let factory: Factory?

    public init(connectionString: String, applicationName: String = "TenantMigrator", reconnectTimeout: Duration = .seconds(60), logger: Logger) {
        self.connectionString = connectionString
        self.applicationName = applicationName
        self.reconnectTimeout = reconnectTimeout
        self.logger = logger
        self.factory = nil
    }

    /// Sessions from the app's own `factory` (its pool, its TLS or credential setup). Each new
    /// connection gets the migrator's ``searchPath`` (one round trip) before it is used; the
    /// factory chooses everything else, the `application_name` included.
    public init(factory: @escaping Factory, reconnectTimeout: Duration = .seconds(60), logger: Logger) {
        self.connectionString = ""
        self.applicationName = ""
        self.reconnectTimeout = reconnectTimeout
        self.logger = logger
        self.factory = factory
    }

    /// This session with another reconnect timeout.
    func reconnecting(for timeout: Duration) -> MigratorSession {
        var session = self
        session.reconnectTimeout = timeout
        return session
    }

    /// Opens a session, retrying transient failures (see ``isTransient(_:)``) until
    /// ``reconnectTimeout`` has passed. Errors that retrying cannot fix (a wrong password, an
    /// unknown database or role, a malformed connection string) are thrown at once.
    public func connect() async throws -> AsyncConnection {
        let deadline = ContinuousClock.now + reconnectTimeout
        var delay = 0.1
        while true {
            do {
                return try await open()
            } catch where Self.isTransient(error) && ContinuousClock.now < deadline {
                try Task.checkCancellation()
                logger.warning("cannot reach the server yet (\(error)); retrying in \(Int(delay * 1000)) ms")
                try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
                delay = min(delay * 2, 5)
            }
        }
    }

    /// One attempt: from the connection string, or from the factory with the search path set.
    private func open() async throws -> AsyncConnection {
        guard let factory else {
            return try await AsyncConnection.connect(connectionString, applicationName: applicationName, searchPath: Self.searchPath, logger: logger)
        }
        let connection = try await factory()
        do {
            try await connection.withConnection { try $0.setSearchPath(Self.searchPath) }
        } catch {
            await connection.close()
            throw error
        }
        return connection
    }

    /// Whether retrying the connection later may succeed: the server refused or dropped the
    /// connection, or said it is starting up, shutting down or full.
    public static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? PQError, error.kind == .connection else { return false }
        if let state = error.sqlState {
            return state == .adminShutdown || state == .cannotConnectNow || state == .tooManyConnections
        }
        let message = error.message.lowercased()
        let permanent = ["password", "does not exist", "invalid", "no pg_hba.conf entry", "requires a password", "could not translate host name"]
        return !permanent.contains { message.contains($0) }
    }
}
