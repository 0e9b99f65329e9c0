import Foundation
import LibPQ
import Logging

/// How the migrator opens its sessions: the one place that does.
///
/// Every session runs with `search_path = pg_catalog, pg_temp`, so no function, operator or type
/// that an untrusted role planted in `public` or in a tenant schema can capture an unqualified name
/// in the migrator's SQL (docs/Security.md), and with fixed settings for whatever prints or parses
/// values (``settings``), so that what the archive keeps as text in one session reads back the
/// same in another, whatever the database's or the role's defaults (docs/Archive.md).
///
/// Connecting retries, with backoff, for at most ``reconnectTimeout``, to get back a server this
/// session has reached before (a restart in the middle of a fleet run costs a pause, not the rest
/// of the fleet), or one that answers that it is starting, shutting down or full. A server never
/// reached (a wrong host or port, nothing listening) fails the first attempt at once: waiting
/// would not make a wrong URL right.
public struct MigratorSession: Sendable {
    /// The schemas every migrator session searches, in order.
    public static let searchPath = ["pg_catalog", "pg_temp"]
    /// The settings every migrator session formats and parses values with: timestamps in UTC and
    /// ISO style, intervals as PostgreSQL prints them, doubles and reals with every digit they need
    /// (`extra_float_digits = 0`, the default before PostgreSQL 12, prints `0.3` for
    /// `0.30000000000000004`), bytes in hex. And `row_security = off`: a row-level security policy
    /// that applies to the migrator fails its statement (42501) instead of hiding rows from it,
    /// which would make a migration update, archive and move only the rows it sees (a migration
    /// switches off the row security forced on tables it owns, ``ForeignHooks``). And SQL text
    /// parsed as today's PostgreSQL parses it, whatever an old configuration says:
    /// `standard_conforming_strings = on` (off, a backslash in `'C:\temp'` or in the migrator's own
    /// `ESCAPE '\'` is an escape), `array_nulls = on` (off, an archived array's `{NULL}` comes back
    /// as the string "NULL"), `transform_null_equals = off` (on, `x = NULL` means `x IS NULL`) and
    /// `quote_all_identifiers = off` (on, the definitions `verify` compares are spelled otherwise).
    public static let settings = [
        "TimeZone": "UTC", "DateStyle": "ISO, MDY", "IntervalStyle": "postgres", "extra_float_digits": "3", "bytea_output": "hex", "row_security": "off",
        "standard_conforming_strings": "on", "array_nulls": "on", "transform_null_equals": "off", "quote_all_identifiers": "off",
    ]

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
    /// Whether a connection of this session (or of a copy of it) has ever been opened.
    private let contact = ServerContact()

    public init(connectionString: String, applicationName: String = "TenantMigrator", reconnectTimeout: Duration = .seconds(60), logger: Logger) {
        self.connectionString = connectionString
        self.applicationName = applicationName
        self.reconnectTimeout = reconnectTimeout
        self.logger = logger
        self.factory = nil
    }

    /// Sessions from the app's own `factory` (its pool, its TLS or credential setup). Each new
    /// connection gets the migrator's ``searchPath`` and ``settings`` (one round trip) before it is
    /// used; the factory chooses everything else, the `application_name` included.
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
    /// ``reconnectTimeout`` has passed, if the server was reached before or answered. Errors that
    /// retrying cannot fix (a wrong password, an unknown database or role, a malformed connection
    /// string) are thrown at once, and so is the failure to reach a server never reached.
    public func connect() async throws -> AsyncConnection {
        let deadline = ContinuousClock.now + reconnectTimeout
        var delay = 0.1
        while true {
            let failure: any Error
            do {
                let connection = try await open()
                await contact.reached()
                return connection
            } catch {
                failure = error
            }
            let reachedBefore = await contact.wasReached
            guard Self.isTransient(failure), ContinuousClock.now < deadline, reachedBefore || Self.serverAnswered(failure) else {
                throw failure
            }
            try Task.checkCancellation()
            logger.warning("cannot reach the server yet (\(failure)); retrying in \(Int(delay * 1000)) ms")
            try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            delay = min(delay * 2, 5)
        }
    }

    /// Whether the server answered, saying it is starting up, shutting down or full: it is there.
    static func serverAnswered(_ error: any Error) -> Bool {
        guard let state = (error as? PQError)?.sqlState else { return false }
        return state == .adminShutdown || state == .cannotConnectNow || state == .tooManyConnections
    }

    /// One attempt: from the connection string, or from the factory with the search path and settings set.
    private func open() async throws -> AsyncConnection {
        guard let factory else {
            return try await AsyncConnection.connect(connectionString, applicationName: applicationName, searchPath: Self.searchPath, settings: Self.settings, logger: logger)
        }
        let connection = try await factory()
        do {
            try await connection.withConnection { try $0.setSession(Self.settings.merging(["search_path": Connection.searchPathValue(Self.searchPath)]) { $1 }) }
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
        if error.sqlState != nil { return serverAnswered(error) }
        let message = error.message.lowercased()
        let permanent = ["password", "does not exist", "invalid", "no pg_hba.conf entry", "requires a password", "could not translate host name"]
        return !permanent.contains { message.contains($0) }
    }
}

/// Whether a session has ever reached its server: shared by the copies of a ``MigratorSession``
/// (a pool's, a fleet run's), so that only a server once reached is waited for.
private actor ServerContact {
    private(set) var wasReached = false

    func reached() {
        wasReached = true
    }
}
