import Foundation

/// How migrations run, whatever they are asked to do: how long a statement may wait for a lock,
/// how often to retry, whether to archive, and where metrics and spans go.
///
/// One value, set once on the facade (``TenantMigrator/settings``) and passed down unchanged to
/// the runner, the fleet and the service; what one migration is asked to do is a
/// ``MigrationRequest``.
public struct MigrationSettings: Sendable {
    /// How long one statement may wait for a lock before the attempt is abandoned and retried.
    /// Zero disables the limit (PostgreSQL's meaning of `lock_timeout = 0`).
    public var lockTimeout: Duration = .seconds(5)
    /// Attempts before a lock timeout becomes a failure (at least 1).
    public var maxAttempts: Int = 5 {
        didSet { maxAttempts = max(1, maxAttempts) }
    }
    /// The first backoff; each retry doubles it, up to ``backoffCap``. Each wait is drawn uniformly
    /// from [half, all] of that value (jitter), so competing runners spread out.
    public var backoffBase: Duration = .milliseconds(200)
    public var backoffCap: Duration = .seconds(10)
    /// Copy what each step destroys or overwrites into the tenant's archive first (the default),
    /// so a rollback gives it back; archived losses then need no consent. Off (`--no-archive`),
    /// every destroyed value is truly lost and needs consent.
    public var archives = true
    /// Archive a dropped column's values only in the rows where the step's way back (the family's
    /// mapping model for the reverse pair) would not give them back, checked row by row (the
    /// default; see docs/Archive.md, "Proof by the way back"). Off, every value such a step drops
    /// is archived.
    public var provesWayBack = true
    /// Migrate tenants whose recorded version's model file has changed since they reached it.
    /// Off by default: such a tenant is refused before anything is touched
    /// (``TenantMigratorError/modelChanged(version:file:tenants:)``), because the plan would assume
    /// a shape the tenant does not have. For the operator who knows the change is cosmetic.
    public var acceptModelChange = false
    /// How long a fleet run keeps reconnecting after losing a connection (a server restart).
    public var reconnectTimeout: Duration = .seconds(60)
    /// How many tenants a fleet run migrates on one session before it opens a new one (nil: one
    /// session per worker for the whole run). A PostgreSQL backend keeps cache entries for every
    /// table it has touched until it ends: about 25 kB per schema of two tables (measured on
    /// PostgreSQL 15), so a worker that migrates 10,000 tenants on one session would hold hundreds
    /// of megabytes, and work through every invalidation other sessions' DDL sends against all of
    /// it. A new session costs a connection and a few cold catalog lookups, nothing per tenant
    /// at this rate. Below 1, every tenant gets a session of its own.
    public var tenantsPerSession: Int? = 500
    /// Where each tenant's and each step's metrics and spans go (the global systems by default).
    public var observability = TenantMigrator.Observability()
    /// How online migrations run: batch sizes, when to cut over, a checkpoint per phase.
    public var online = OnlineSettings()

    public init(lockTimeout: Duration = .seconds(5), maxAttempts: Int = 5) {
        self.lockTimeout = lockTimeout
        self.maxAttempts = max(1, maxAttempts)
    }
}
