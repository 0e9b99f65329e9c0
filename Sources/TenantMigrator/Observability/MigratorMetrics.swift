import Foundation
import Metrics
import MigrationEngine

/// The metrics TenantMigrator reports through swift-metrics, by name, with their dimensions.
///
/// Nothing is reported unless the app bootstraps `MetricsSystem` (or injects a factory through
/// ``TenantMigrator/Observability``). Every metric carries the `family` dimension.
public enum MigratorMetrics {
    /// Counter: tenants handled, by `outcome` (the raw value of ``TenantMigrationResult/Outcome``:
    /// `migrated`, `alreadyCurrent`, `failed`) and `mode` (``MigrationRunMode``'s raw value:
    /// `apply`, `dry-run`, `rehearse`; a trial's `migrated` means "would migrate").
    ///
    /// Incremented once per tenant the runner handles, once per `migrateIfNeeded` that finds the
    /// tenant current, and by N at once for the N tenants a fleet run finds current in its catalog
    /// query. A refusal (destructive plan, wrong direction) counts as `failed`; a tenant stopped by
    /// a fleet interruption before it changed anything is not counted.
    public static let tenantsTotal = "tenant_migrator_tenants_total"

    /// Timer: the wall time of one tenant's migration, retries and lock waits included, by
    /// `outcome`. Sampled whenever ``tenantsTotal`` is incremented for one tenant (not for the tenants
    /// a fleet run skips in its catalog query: they cost no time of their own).
    public static let tenantDuration = "tenant_migrator_tenant_duration"

    /// Timer: the wall time of one step that ran to completion, by `kind` (`inferred` or
    /// `mapped`), `from` and `to` (the step's first and last versions). A step that fails shows as
    /// an error on its span instead. A trial's steps and a rehearsal's way back are sampled too:
    /// they really run.
    public static let stepDuration = "tenant_migrator_step_duration"

    /// Counter: attempts rolled back and retried after losing a lock race, by `cause`
    /// (`lock_timeout` for SQLSTATE 55P03, `deadlock` for 40P01). The attempt that finally gives up
    /// is not a retry: it fails the tenant.
    public static let lockRetriesTotal = "tenant_migrator_lock_retries_total"

    /// The dimension names.
    public enum Dimension {
        public static let family = "family"
        public static let outcome = "outcome"
        public static let mode = "mode"
        public static let kind = "kind"
        public static let from = "from"
        public static let to = "to"
        public static let cause = "cause"
    }

    /// `inferred` or `mapped`: a step's kind as metrics and spans name it.
    static func kind(of step: MigrationStep) -> String {
        switch step.kind {
        case .inferred: return "inferred"
        case .mapped: return "mapped"
        }
    }
}

extension TenantMigrator.Observability {
    /// One tenant handled: ``MigratorMetrics/tenantsTotal`` + 1 and a ``MigratorMetrics/tenantDuration`` sample.
    func recordTenant(_ outcome: TenantMigrationResult.Outcome, family: String, mode: MigrationRunMode, duration: Duration) {
        countTenants(outcome, family: family, mode: mode, by: 1)
        Metrics.Timer(
            label: MigratorMetrics.tenantDuration,
            dimensions: [(MigratorMetrics.Dimension.family, family), (MigratorMetrics.Dimension.outcome, outcome.rawValue)],
            factory: metricsFactory
        ).record(duration: duration)
    }

    /// `count` tenants with one outcome, in one increment (a fleet run's skipped tenants).
    func countTenants(_ outcome: TenantMigrationResult.Outcome, family: String, mode: MigrationRunMode, by count: Int) {
        guard count > 0 else { return }
        Counter(
            label: MigratorMetrics.tenantsTotal,
            dimensions: [
                (MigratorMetrics.Dimension.family, family), (MigratorMetrics.Dimension.outcome, outcome.rawValue),
                (MigratorMetrics.Dimension.mode, mode.rawValue),
            ],
            factory: metricsFactory
        ).increment(by: count)
    }

    /// One step ran to completion in `duration`.
    func recordStep(_ step: MigrationStep, family: String, duration: Duration) {
        Metrics.Timer(
            label: MigratorMetrics.stepDuration,
            dimensions: [
                (MigratorMetrics.Dimension.family, family), (MigratorMetrics.Dimension.kind, MigratorMetrics.kind(of: step)),
                (MigratorMetrics.Dimension.from, step.source.name), (MigratorMetrics.Dimension.to, step.destination.name),
            ],
            factory: metricsFactory
        ).record(duration: duration)
    }

    /// One attempt rolled back to be retried; `deadlock` tells 40P01 from 55P03.
    func countLockRetry(family: String, deadlock: Bool) {
        Counter(
            label: MigratorMetrics.lockRetriesTotal,
            dimensions: [(MigratorMetrics.Dimension.family, family), (MigratorMetrics.Dimension.cause, deadlock ? "deadlock" : "lock_timeout")],
            factory: metricsFactory
        ).increment()
    }
}
