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
public final class CurrentTenantCache: @unchecked Sendable {
    let catalog: TenantCatalog
    let pool: ConnectionPool

    let lock = NSLock()
    // Guarded by `lock`.
    var current: Set<String> = []
    /// Bumped by every announcement and every loss of the listener; insertions check it.
    var generation: UInt64 = 0
    var listener: Listener = .stopped

    /// Where the listening connection stands.
    enum Listener {
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
        lock.withLock {
            guard case .listening = listener else { return false }
            return current.contains(tenant.rawValue)
        }
    }

    /// A mark to pass to ``remember(_:since:)``, taken before the catalog query; nil when the
    /// listener is not up (nothing may be cached then).
    func mark() -> UInt64? {
        lock.withLock {
            guard case .listening = listener else { return nil }
            return generation
        }
    }

    /// Remembers that `tenant` is current, unless anything was announced (or the listener was
    /// lost) since `mark` was taken.
    func remember(_ tenant: TenantName, since mark: UInt64) {
        lock.withLock {
            guard case .listening = listener, generation == mark else { return }
            current.insert(tenant.rawValue)
        }
    }

    /// Forgets the announced tenants.
    func forget(_ tenants: [String]) {
        lock.withLock {
            generation += 1
            current.subtract(tenants)
        }
    }

    /// How many tenants are cached (for tests and diagnostics).
    public var count: Int { lock.withLock { current.count } }

    /// Whether the listener is up, so that cached answers are trusted.
    public var isListening: Bool {
        lock.withLock {
            if case .listening = listener { return true }
            return false
        }
    }
}
