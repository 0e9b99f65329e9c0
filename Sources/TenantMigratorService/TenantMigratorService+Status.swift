import TenantMigrator

extension TenantMigratorService {
    /// Where one tenant stands, as far as this service has seen (see ``TenantMigratorService/status(of:)``).
    public enum Status: Sendable, Hashable {
        /// The service has not seen this tenant: not in the catalog when the service read it, or
        /// the boot pass has not read the catalog yet. ``TenantMigratorService/checkReady(tenant:)``
        /// looks it up.
        case unknown
        /// At the family's latest version: safe to serve.
        case ready
        /// A pass (the boot pass or a background retry) is migrating it now.
        case migrating
        /// Not migrated yet: the boot pass reached its deadline (or the service found the tenant
        /// behind later) before the tenant's migration started; the background retries take it.
        case pending
        /// Its last attempt gave up waiting for a lock another session held (SQLSTATE 55P03);
        /// nothing was changed, and the background retries try again with backoff.
        case waitingForLock
        /// Its migration failed and was rolled back (the tenant is still at its old version).
        case failed(Failure)
        /// Pinned at this older version (rolled back by an operator, or `pin`ned): the service
        /// leaves it there and does not retry; it is not ready for code that needs the latest
        /// version. `unpin` it, or migrate it by name, to move it on.
        case pinned(version: String)

        /// Whether the tenant can be served (``ready``).
        public var isReady: Bool { self == .ready }
    }

    /// Why a tenant's migration failed, and how the service goes on with it.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// The error as the fleet report gives it.
        public var message: String
        /// The SQLSTATE, when the server sent one.
        public var sqlState: String?
        /// Whether the same attempt would fail the same way (a mapping error, a dependent view, a
        /// constraint the data breaks): retried only every ``RetryPolicy/deterministicInterval``.
        /// Transient failures (deadlocks, serialization failures, lost connections, a server
        /// shutting down or full) are retried on the backoff schedule.
        public var isDeterministic: Bool

        public init(message: String, sqlState: String?, isDeterministic: Bool) {
            self.message = message
            self.sqlState = sqlState
            self.isDeterministic = isDeterministic
        }

        public var description: String { message }
    }
}

extension TenantMigratorService.Status {
    /// SQLSTATEs of failures that another attempt may well not meet: deadlocks and serialization
    /// failures, a server shutting down, full or out of resources. Lock timeouts (55P03) are
    /// ``waitingForLock``; connection failures (class 08) are matched by class.
    static let transientSQLStates: Set<String> = ["40P01", "40001", "57P01", "57P02", "57P03", "53000", "53100", "53200", "53300", "53400"]

    /// The status a fleet report's entry leaves its tenant in; nil when the tenant is not in the
    /// catalog (any more): the fleet run reports it failed with no version.
    init?(_ entry: FleetReport.Entry) {
        switch entry.outcome {
        case .migrated, .skipped:
            self = .ready
        case .notStarted:
            self = .pending
        case .pinned:
            self = .pinned(version: entry.fromVersion)
        case .failed:
            guard !entry.fromVersion.isEmpty else { return nil }
            if entry.sqlState == "55P03" {
                self = .waitingForLock
                return
            }
            let transient = entry.sqlState.map { Self.transientSQLStates.contains($0) || $0.hasPrefix("08") } ?? false
            self = .failed(TenantMigratorService.Failure(
                message: entry.error ?? "failed", sqlState: entry.sqlState, isDeterministic: !transient
            ))
        }
    }

    /// Whether the background retries take this tenant on the backoff schedule (rather than the
    /// deterministic-failure interval, or not at all).
    var retriesWithBackoff: Bool {
        switch self {
        case .pending, .waitingForLock: return true
        case let .failed(failure): return !failure.isDeterministic
        case .ready, .migrating, .unknown, .pinned: return false
        }
    }
}
