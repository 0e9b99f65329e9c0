import Metrics

extension MigratorMetrics {
    /// Counter: rows an online migration copied into its shadow, by `family` and `tenant` (online
    /// runs are few and big, so they are told apart).
    public static let onlineRowsCopiedTotal = "tenant_migrator_online_rows_copied_total"

    /// Counter: changes the app made during an online migration that were caught up (change log
    /// entries), by `family` and `tenant`.
    public static let onlineChangesTotal = "tenant_migrator_online_changes_caught_up_total"

    /// Counter: phases online migrations entered, by `family`, `tenant` and `phase`
    /// (``OnlinePhase``'s raw value): the last one counted is where a tenant is.
    public static let onlinePhasesTotal = "tenant_migrator_online_phases_total"

    /// Timer: how long an online cutover held a tenant's tables against writes (reads went on), by `family`.
    public static let onlineWritesBlocked = "tenant_migrator_online_writes_blocked"

    /// Timer: how long an online cutover held a tenant's tables against reads too (the swap), by `family`.
    public static let onlineReadsBlocked = "tenant_migrator_online_reads_blocked"
}

extension MigratorMetrics.Dimension {
    public static let tenant = "tenant"
    public static let phase = "phase"
}

extension TenantMigrator.Observability {
    func countOnlineRowsCopied(_ rows: Int, family: String, tenant: TenantName) {
        guard rows > 0 else { return }
        Counter(label: MigratorMetrics.onlineRowsCopiedTotal, dimensions: Self.online(family, tenant), factory: metricsFactory).increment(by: rows)
    }

    func countOnlineChanges(_ changes: Int, family: String, tenant: TenantName) {
        guard changes > 0 else { return }
        Counter(label: MigratorMetrics.onlineChangesTotal, dimensions: Self.online(family, tenant), factory: metricsFactory).increment(by: changes)
    }

    func countOnlinePhase(_ phase: OnlinePhase, family: String, tenant: TenantName) {
        Counter(label: MigratorMetrics.onlinePhasesTotal, dimensions: Self.online(family, tenant) + [(MigratorMetrics.Dimension.phase, phase.rawValue)],
                factory: metricsFactory).increment()
    }

    func recordOnlineCutover(writesBlocked: Duration, readsBlocked: Duration, family: String) {
        let dimensions = [(MigratorMetrics.Dimension.family, family)]
        Metrics.Timer(label: MigratorMetrics.onlineWritesBlocked, dimensions: dimensions, factory: metricsFactory).record(duration: writesBlocked)
        Metrics.Timer(label: MigratorMetrics.onlineReadsBlocked, dimensions: dimensions, factory: metricsFactory).record(duration: readsBlocked)
    }

    private static func online(_ family: String, _ tenant: TenantName) -> [(String, String)] {
        [(MigratorMetrics.Dimension.family, family), (MigratorMetrics.Dimension.tenant, tenant.rawValue)]
    }
}
