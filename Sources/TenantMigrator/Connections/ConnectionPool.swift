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
public final class ConnectionPool: Sendable {
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

    private typealias Waiter = CheckedContinuation<PoolGrant<AsyncConnection>, any Error>
    private let state: Locked<PoolState<AsyncConnection, Waiter>>

    /// Opens sessions through `session` (its reconnect timeout is ignored: facade calls try once,
    /// fleet runs say how long to retry).
    public init(session: MigratorSession, configuration: Configuration = Configuration()) {
        self.session = session
        self.configuration = configuration
        self.state = Locked(PoolState(maximumConnections: configuration.maximumConnections, idleTimeout: configuration.idleTimeout))
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
        state.withLock { $0.statistics }
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
        state.withLock { $0.countOpened() }
        return connection
    }

    /// Closes a connection from ``openDedicated(reconnectTimeout:)``.
    public func closeDedicated(_ connection: AsyncConnection) async {
        state.withLock { $0.countDedicatedClosed() }
        await connection.close()
    }

    /// Closes every idle connection and refuses later checkouts; connections in use are closed when
    /// they come back. Waiting tasks get a cancellation error.
    public func shutdown() async {
        let (closing, waiting) = state.withLock { $0.shutDown() }
        for waiter in waiting { waiter.resume(throwing: CancellationError()) }
        for connection in closing { await connection.close() }
    }

    // MARK: Checking out and in

    /// Takes a healthy connection: an idle one, a new one while fewer than the maximum are open, or
    /// the next one given back (waiting in line). New sessions retry an unreachable server for
    /// `reconnectTimeout`. Give it back with ``checkin(_:reusable:)``.
    func checkout(reconnectTimeout: Duration = .zero) async throws -> AsyncConnection {
        while true {
            let grant: PoolGrant<AsyncConnection>
            if let immediate = try takeImmediately() { grant = immediate } else { grant = try await waitInLine() }
            if let connection = try await use(grant, reconnectTimeout: reconnectTimeout) { return connection }
        }
    }

    /// Like ``checkout(reconnectTimeout:)``, but nil instead of waiting when every connection is in
    /// use (a fleet run's extra workers go on with fewer connections rather than queue).
    func checkoutIfAvailable() async throws -> AsyncConnection? {
        while let grant = try takeImmediately() {
            if let connection = try await use(grant, reconnectTimeout: .zero) { return connection }
        }
        return nil
    }

    /// Gives back a connection from ``checkout(reconnectTimeout:)``: to the next waiting task or to
    /// the idle connections when `reusable`, closed otherwise.
    func checkin(_ connection: AsyncConnection, reusable: Bool) async {
        switch state.withLock({ $0.checkin(connection, reusable: reusable, at: .now) }) {
        case .handOver(let waiter):
            waiter.resume(returning: .connection(connection))
        case .keepIdle(let startSweeping):
            if startSweeping { startSweeper() }
        case .close(let slotFor):
            slotFor?.resume(returning: .slot)
            await connection.close()
        }
    }

    /// Closes a connection that held a slot; the slot goes to the next waiting task, if any.
    func discard(_ connection: AsyncConnection) async {
        state.withLock { $0.closed() }?.resume(returning: .slot)
        await connection.close()
    }

    /// Opens a session that keeps one of the pool's slots for as long as it is open (the current
    /// tenants cache's listener), so the pool never has more than
    /// ``Configuration/maximumConnections`` sessions in all. It takes a free slot, or closes an idle
    /// connection for its slot; it is refused, without waiting, in a pool of one or when every
    /// connection is in use. Close it with ``closeHoldingSlot(_:)``.
    func openHoldingSlot() async throws -> AsyncConnection {
        if let displaced = try state.withLock({ try $0.takeSlotToHold() }) { await displaced.close() }
        return try await openInSlot(reconnectTimeout: .zero)
    }

    /// Closes a connection from ``openHoldingSlot()``; its slot goes to the next waiting task.
    func closeHoldingSlot(_ connection: AsyncConnection) async {
        await discard(connection)
    }

    /// The connection `grant` stands for, when it is still reusable (checked without a round trip),
    /// or a new one in the granted slot; nil when the granted connection had to be closed.
    private func use(_ grant: PoolGrant<AsyncConnection>, reconnectTimeout: Duration) async throws -> AsyncConnection? {
        switch grant {
        case .slot:
            return try await openInSlot(reconnectTimeout: reconnectTimeout)
        case .connection(let connection):
            if (try? await connection.withConnection({ $0.isReusable })) == true { return connection }
            await discard(connection)
            return nil
        }
    }

    /// An idle connection or a free slot now, or nil when every connection is in use.
    private func takeImmediately() throws -> PoolGrant<AsyncConnection>? {
        let (grant, expired) = try state.withLock { try $0.take(at: .now) }
        if !expired.isEmpty { Task { for connection in expired { await connection.close() } } }
        return grant
    }

    /// Waits, first come first served, for a connection or a slot. Cancelling the task ends the wait.
    private func waitInLine() async throws -> PoolGrant<AsyncConnection> {
        let id = state.withLock { $0.nextWaiterID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                // Checked under the lock: a cancel after this look finds the waiter in line.
                let ready = Result { () throws -> PoolGrant<AsyncConnection>? in
                    try state.withLock { state in
                        try Task.checkCancellation()
                        return try state.wait(continuation, id: id)
                    }
                }
                switch ready {
                case .success(nil): break
                case .success(let grant?): continuation.resume(returning: grant)
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            state.withLock { $0.removeWaiter(id) }?.resume(throwing: CancellationError())
        }
    }

    /// Opens a session in a slot already counted; on failure the slot goes to the next waiting
    /// task, or is freed.
    private func openInSlot(reconnectTimeout: Duration) async throws -> AsyncConnection {
        do {
            let connection = try await session.reconnecting(for: reconnectTimeout).connect()
            state.withLock { $0.countOpened() }
            return connection
        } catch {
            state.withLock { $0.openFailed() }?.resume(returning: .slot)
            throw error
        }
    }

    // MARK: Idle timeout

    /// Starts the light timer that closes expired idle connections while there are any (checkouts
    /// also close them as they go). It holds the pool weakly: a pool nobody uses goes away.
    private func startSweeper() {
        let interval = max(configuration.idleTimeout / 2, .milliseconds(10))
        Task { [weak self] in
            while true {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                let (expired, goOn) = self.state.withLock { $0.sweep(at: .now) }
                for connection in expired { await connection.close() }
                if !goOn { return }
            }
        }
    }
}
