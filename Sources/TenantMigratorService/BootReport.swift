import TenantMigrator

/// What ``TenantMigratorService``'s boot pass did: the tenants it made ready and those it left to
/// the background retries.
public struct BootReport: Sendable {
    /// The fleet run's own report, one entry per tenant; nil when the pass could not run at all
    /// (see ``error``).
    public var fleet: FleetReport?
    /// Tenants at the latest version when the pass ended (migrated, or already there).
    public var ready: [String]
    /// Tenants left behind because of locks: their last attempt gave up waiting for a lock, or the
    /// deadline passed before they were migrated (they may have been waiting for one). Retried in
    /// the background.
    public var held: [String]
    /// Tenants pinned at an older version, left there (see ``TenantMigratorService/Status/pinned(version:)``).
    public var pinned: [String] = []
    /// Tenants whose migration failed, with why.
    public var failed: [String: TenantMigratorService.Failure]
    /// Why the pass could not run at all (the database unreachable, say); the background retries
    /// then run the whole pass again.
    public var error: String?
    /// The deadline passed before every tenant was done, and the pass stopped waiting for locks.
    public var deadlineReached: Bool
    /// The pass stopped because the service was shutting down.
    public var shutDown: Bool
    /// How long the pass took.
    public var duration: Duration

    /// Whether every tenant is ready.
    public var succeeded: Bool { error == nil && held.isEmpty && failed.isEmpty && !shutDown }
}
