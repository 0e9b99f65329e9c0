import Foundation
import LibPQ
import Logging

/// The tenants a ``TenantMigrator`` knows to be at its family's latest version, so that
/// ``TenantMigrator/migrateIfNeeded(tenant:)`` answers for them from memory: no session, no round
/// trip.
///
/// Every catalog write that changes a tenant's row announces the tenant on the catalog's
/// ``TenantCatalog/notificationChannel`` in the same transaction; one connection of the cache's own
/// listens there and forgets each tenant announced. Entries are trusted only while that listener
/// is up: when it is lost, the cache is emptied and every call queries the catalog (on a pooled
/// connection) until the listener is back.
///
/// An entry is added only if no announcement arrived between the query that found the tenant
/// current and the insertion, so an entry never outlives a change the listener has seen. What
/// remains is the moment between another session's commit and the delivery of its notification:
/// a call in that moment answers "already current", as it would have had it run just before the
/// commit. Only current tenants are cached: any other tenant (behind, failed, pinned) always takes
/// the normal path.
public final class CurrentTenantCache: Sendable {
    private let catalog: TenantCatalog
    private let pool: ConnectionPool
    private let state = Locked(State())

    /// How long the listener waits for notifications before it looks whether it is still wanted.
    private static let listenInterval = Duration.milliseconds(500)
    /// How long after a failure the listener is not tried again (calls query the catalog meanwhile).
    private static let retryDelay = Duration.seconds(1)

    /// The cache behind its lock.
    private struct State {
        var current: Set<String> = []
        /// Bumped by every announcement and every loss of the listener; insertions check it.
        var generation: UInt64 = 0
        var listener: Listener = .stopped

        var isListening: Bool {
            if case .listening = listener { return true }
            return false
        }

        /// Forgets every tenant, and makes every mark taken so far stale.
        mutating func clear() {
            current.removeAll()
            generation += 1
        }
    }

    /// Where the listening connection stands.
    private enum Listener {
        case stopped
        case starting(Task<Void, Never>)
        case listening(AsyncConnection)
        /// Lost or refused; not retried before the instant.
        case failed(retryAfter: ContinuousClock.Instant)
        case shutDown
    }

    init(catalog: TenantCatalog, pool: ConnectionPool) {
        self.catalog = catalog
        self.pool = pool
    }

    /// Whether `tenant` is known to be current.
    func isCurrent(_ tenant: TenantName) -> Bool {
        state.withLock { $0.isListening && $0.current.contains(tenant.rawValue) }
    }

    /// A mark to pass to ``remember(_:since:)``, taken before the catalog query; nil when the
    /// listener is not up (nothing may be cached then).
    func mark() -> UInt64? {
        state.withLock { $0.isListening ? $0.generation : nil }
    }

    /// Remembers that `tenant` is current, unless anything was announced (or the listener was
    /// lost) since `mark` was taken.
    func remember(_ tenant: TenantName, since mark: UInt64) {
        state.withLock { state in
            guard state.isListening, state.generation == mark else { return }
            state.current.insert(tenant.rawValue)
        }
    }

    /// Forgets the announced tenants.
    func forget(_ tenants: [String]) {
        state.withLock { state in
            state.generation += 1
            state.current.subtract(tenants)
        }
    }

    /// How many tenants are cached (for tests and diagnostics).
    public var count: Int { state.withLock { $0.current.count } }

    /// Whether the listener is up, so that cached answers are trusted.
    public var isListening: Bool { state.withLock { $0.isListening } }

    // MARK: The listener

    /// Starts the listener when it is not up, and waits until it listens (or failed: then calls go
    /// on without the cache). Costs nothing when it is up; a failed listener is retried after
    /// ``retryDelay``.
    func startListening() async {
        let task = state.withLock { state -> Task<Void, Never>? in
            switch state.listener {
            case .listening, .shutDown:
                return nil
            case .starting(let task):
                return task
            case .failed(let retryAfter) where ContinuousClock.now < retryAfter:
                return nil
            case .stopped, .failed:
                let task = Task { await self.connectListener() }
                state.listener = .starting(task)
                return task
            }
        }
        await task?.value
    }

    /// Stops listening and empties the cache for good.
    func shutdown() async {
        let connection = state.withLock { state -> AsyncConnection? in
            defer {
                state.listener = .shutDown
                state.clear()
            }
            if case .listening(let connection) = state.listener { return connection }
            return nil
        }
        if let connection { await pool.closeHoldingSlot(connection) }
    }

    /// Opens the listening connection (in one of the pool's slots) and starts the loop that reads it.
    private func connectListener() async {
        do {
            let connection = try await pool.openHoldingSlot()
            let channel = catalog.notificationChannel
            do {
                try await connection.withConnection { try $0.listen(channel) }
            } catch {
                await pool.closeHoldingSlot(connection)
                throw error
            }
            let wanted = state.withLock { state in
                guard case .starting = state.listener else { return false }
                state.listener = .listening(connection)
                state.clear()
                return true
            }
            guard wanted else { return await pool.closeHoldingSlot(connection) }
            let owner = WeakReference(self)
            Task { await Self.readNotifications(on: connection, for: owner) }
        } catch {
            pool.logger.warning("cannot listen for catalog changes (\(error)); migrateIfNeeded queries the catalog on every call for now")
            state.withLock { state in
                if case .starting = state.listener { state.listener = .failed(retryAfter: .now + Self.retryDelay) }
            }
        }
    }

    /// Forgets every tenant announced on the listener's connection, until the connection is lost
    /// or the cache is shut down or released. It holds the cache only while it handles a batch.
    private static func readNotifications(on connection: AsyncConnection, for owner: WeakReference<CurrentTenantCache>) async {
        while true {
            let received: Result<[PQNotification], any Error>
            do {
                received = .success(try await connection.withConnection { try $0.waitForNotifications(timeout: Self.listenInterval) })
            } catch {
                received = .failure(error)
            }
            guard let cache = owner.value else {
                await connection.close()
                return
            }
            switch received {
            case .success(let notifications):
                if !notifications.isEmpty { cache.forget(notifications.map(\.payload)) }
            case .failure(let error):
                await cache.listenerLost(connection, error: error)
                return
            }
        }
    }

    /// The listener's connection failed: forget everything, and let a later call start a new one.
    private func listenerLost(_ connection: AsyncConnection, error: any Error) async {
        let wasListening = state.withLock { state in
            state.clear()
            guard case .listening(let active) = state.listener, active === connection else { return false }
            state.listener = .failed(retryAfter: .now + Self.retryDelay)
            return true
        }
        if wasListening {
            pool.logger.warning("lost the connection that listens for catalog changes (\(error)); the cache of current tenants is cleared")
            await pool.closeHoldingSlot(connection)
        }
    }
}

/// A reference that does not keep its object alive.
private final class WeakReference<Object: AnyObject & Sendable>: @unchecked Sendable {
    /// Set once, at initialization.
    private(set) weak var value: Object?
    init(_ value: Object) { self.value = value }
}
