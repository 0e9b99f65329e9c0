import Foundation
import LibPQ
import Logging

/// A bounded pool of migrator sessions, owned by a ``TenantMigrator`` and shared by its copies.
///
/// Every connection comes from one ``MigratorSession`` (a connection string or the app's own
/// factory), so every one runs with the migrator's search path. A connection goes back to the pool
/// only when it is healthy and idle, with no transaction open, and the task that used it was not
/// cancelled (a cancel request might still be on its way to the server); otherwise it is closed.
/// A connection taken from the pool is checked first without a round trip (``Connection/isReusable``),
/// so one whose backend was terminated while it sat idle is closed, not handed out. Connections
/// idle longer than ``Configuration/idleTimeout`` are closed.
///
/// When all ``Configuration/maximumConnections`` are in use, ``withConnection(_:)`` waits for one,
/// first come first served; cancelling the waiting task ends its wait. The current tenants cache's
/// listener, when there is one, holds one of those connections.
///
/// Session state a caller changes (`SET` without `LOCAL`, `LISTEN`, temporary tables that outlive
/// the transaction) stays with the pooled connection: keep such changes transaction-local.
public final class ConnectionPool: @unchecked Sendable {
    /// How many connections the pool keeps and for how long.
    public struct Configuration: Sendable, Hashable {
        /// Connections open at once, in use or idle (at least 1).
        public var maximumConnections: Int
        /// How long an unused connection stays open. Zero closes every connection as soon as it is
        /// given back, so every call opens a session of its own.
        public var idleTimeout: Duration
        /// Whether the migrator keeps one more connection that listens to the catalog's changes,
        /// so that ``TenantMigrator/migrateIfNeeded(tenant:)`` answers for current tenants from
        /// memory (see ``CurrentTenantCache``). Off, every such call costs one catalog query.
        public var cachesCurrentTenants: Bool

        public init(maximumConnections: Int = 8, idleTimeout: Duration = .seconds(60), cachesCurrentTenants: Bool = true) {
            self.maximumConnections = max(1, maximumConnections)
            self.idleTimeout = max(.zero, idleTimeout)
            self.cachesCurrentTenants = cachesCurrentTenants
        }
    }

    /// What the pool has done so far.
    public struct Statistics: Sendable, Hashable {
        /// Sessions opened, ever.
        public var opened = 0
        /// Sessions closed, ever (idle timeout, broken, shutdown).
        public var closed = 0
        /// Connections open now and lent out.
        public var inUse = 0
        /// Connections open now and waiting in the pool.
        public var idle = 0
        /// Tasks waiting for a connection now.
        public var waiting = 0
    }

    public let configuration: Configuration
    /// Where the pool's connections come from.
    public let session: MigratorSession
    var logger: Logger { session.logger }

    let lock = NSLock()
    // Guarded by `lock`.
    var idle: [(connection: AsyncConnection, since: ContinuousClock.Instant)] = []
    var openCount = 0
    var waiters: [(id: UInt64, continuation: CheckedContinuation<Grant, any Error>)] = []
    var nextWaiterID: UInt64 = 0
    var counters = Statistics()
    var isShutDown = false
    var isSweeping = false

    /// Opens sessions through `session` (its reconnect timeout is ignored: facade calls try once,
    /// fleet runs say how long to retry).
    public init(session: MigratorSession, configuration: Configuration = Configuration()) {
        self.session = session
        self.configuration = configuration
    }

    /// A pool of sessions from the app's own `factory` (see ``MigratorSession/init(factory:reconnectTimeout:logger:)``).
    public convenience init(
        factory: @escaping MigratorSession.Factory, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "TenantMigrator")
    ) {
        self.init(session: MigratorSession(factory: factory, logger: logger), configuration: configuration)
    }

    /// What the pool has done so far, and what it holds now.
    public var statistics: Statistics {
        lock.withLock {
            var statistics = counters
            statistics.idle = idle.count
            statistics.inUse = openCount - idle.count
            statistics.waiting = waiters.count
            return statistics
        }
    }

    /// Runs `body` on a pooled connection, then gives the connection back (or closes it; see the
    /// type's description).
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let connection = try await checkout()
        let outcome: Result<T, any Error>
        var reusable = false
        do {
            let (result, isReusable) = try await connection.withConnection { connection -> (Result<T, any Error>, Bool) in
                (Result { try body(connection) }, connection.isReusable)
            }
            outcome = result
            reusable = isReusable && !Task.isCancelled
        } catch {
            outcome = .failure(error)  // did not run: cancelled before it started, or the connection was closed
        }
        await checkin(connection, reusable: reusable)
        return try outcome.get()
    }

    /// Opens a session outside the pool's bound (a fleet run's extra workers),
    /// retrying an unreachable server for `reconnectTimeout`. The caller closes it.
    public func openDedicated(reconnectTimeout: Duration = .zero) async throws -> AsyncConnection {
        let connection = try await session.reconnecting(for: reconnectTimeout).connect()
        lock.withLock { counters.opened += 1 }
        return connection
    }

    /// Closes a connection from ``openDedicated(reconnectTimeout:)``.
    public func closeDedicated(_ connection: AsyncConnection) async {
        lock.withLock { counters.closed += 1 }
        await connection.close()
    }

    /// Closes every idle connection and refuses later checkouts; connections in use are closed when
    /// they come back. Waiting tasks get a cancellation error.
    public func shutdown() async {
        let (closing, waiting) = lock.withLock {
            isShutDown = true
            let closing = idle.map(\.connection)
            counters.closed += closing.count
            openCount -= closing.count
            idle = []
            let waiting = waiters
            waiters = []
            return (closing, waiting)
        }
        for waiter in waiting { waiter.continuation.resume(throwing: CancellationError()) }
        for connection in closing { await connection.close() }
    }
}
