import EntityModel
import Foundation
import LibPQ
import Logging
import MigrationEngine

/// One tenant's online migration (docs/Online.md): the tenant's new version is built in a shadow
/// schema while the app goes on reading and writing, then swapped in by one short transaction.
///
/// The phases, each in transactions of its own:
/// 1. **lock**: the runner's session takes the tenant's lease for the whole run (``OnlineLease``:
///    every other runner of the tenant, online or offline, waits for it), and reads the tenant;
///    a small tenant (`--online-above`) or a catalog-only plan runs offline, in one short transaction;
/// 2. **prepare**: the run's private schema, the change log and its triggers on the live tables;
/// 3. **copy**: the live tables into the shadow, in batches by key, each its own transaction;
/// 4. **build**: the steps that can be caught up run on the shadow with the step executor;
/// 5. **catch up**: rounds of ``CatchUpRound`` until few changes are left;
/// 6. **cut over** (``OnlineCutover``): lock the live tables against writes, apply the last
///    changes, run the steps that could not be caught up, lock against reads, swap the tables,
///    record the version; commit.
///
/// A crash or lost connection before the cutover commits leaves the tenant at its old version:
/// the live tables were only read, the triggers go inert once the session is gone, and the
/// next run (or `online cleanup`) removes them and the private schema, then starts over.
struct OnlineRun {
    let tenantRun: TenantRun

    init(_ run: TenantRun) {
        self.tenantRun = run
    }

    var connection: Connection { tenantRun.connection }
    var settings: MigrationSettings { tenantRun.settings }
    var catalog: TenantCatalog { tenantRun.catalog }
    var tenant: TenantName { tenantRun.tenant }
    var logger: Logger { tenantRun.logger }

    /// The call's result, or its failure (recorded like an offline one).
    func run() throws -> TenantMigrationResult {
        let state = TenantRun.AttemptState()
        let lease: OnlineLease
        do {
            lease = try OnlineLease.acquire(run: tenantRun)
        } catch let stopped as TenantMigrationError {
            throw stopped
        } catch where tenantRun.isStop(error) {
            // Stopped while waiting for the tenant: nothing was done, nothing to record.
            throw tenantRun.interrupted(from: nil, attempts: 0)
        } catch {
            throw try tenantRun.failure(error, attempt: settings.maxAttempts, state: state)
        }
        defer { lease.release(catalog: catalog, on: connection) }
        var context: OnlineContext?
        do {
            return try migrate(lease: lease, state: state, context: &context)
        } catch let refusal as TenantRun.Refusal {
            throw refusal.error
        } catch let ended as TenantMigrationError {
            // The offline path's own end (a plan it runs offline failed, was refused or stopped):
            // already said and recorded as it should be.
            context?.cleanUpAfterFailure()
            throw ended
        } catch {
            if let context { context.cleanUpAfterFailure() }
            // Stopped by the fleet: a second stop (checked between phases, or a statement it
            // cancelled), or a first one while the run still waited to begin. Nothing changed.
            let stopped = error as? OnlineStopped
            if stopped != nil || tenantRun.isStop(error) {
                throw tenantRun.interrupted(from: stopped?.fromVersion ?? context?.record.version, attempts: 1)
            }
            let explained = context?.explaining(error) ?? error
            throw try tenantRun.failure(explained, attempt: context?.progress.cutoverAttempts ?? 1, state: state, failedStep: context?.failedStep)
        }
    }

    /// Everything after the lease is taken.
    private func migrate(lease: OnlineLease, state: TenantRun.AttemptState, context: inout OnlineContext?) throws -> TenantMigrationResult {
        let record = try catalog.requireTenant(tenant, on: connection)
        guard record.family == tenantRun.family.name else {
            throw TenantRun.Refusal(error: TenantMigratorError.familyMismatch(tenant: tenant, recorded: record.family, configured: tenantRun.family.name))
        }
        state.fromVersion = record.version
        switch record.standing(toward: tenantRun.destination.name) {
        case .current:
            // Nothing to build: the offline path reads, pins or leaves the tenant in one short transaction.
            return try tenantRun.runOffline()
        case .pinned where tenantRun.request.pins == .respect:
            return try tenantRun.runOffline()
        case .pinned, .elsewhere:
            break
        }
        let plan = try tenantRun.checkedPlan(for: record, attempt: 1)
        let online = OnlinePlan(plan)
        let estimate = try estimatedRows(online, record: record)
        if let offline = try offlineChoice(online, record: record, estimate: estimate) {
            logger.info("runs offline: \(offline.reason)", metadata: ["step": "\(record.version) → \(tenantRun.destination.name)"])
            var result = try tenantRun.runOffline()
            result.online = offline
            return result
        }
        let schemas = try OnlineSchemas.of(record.schema, on: connection)
        if try connection.capabilities.swapsShadowsInByRenames {
            return try migrateInSchema(online, record: record, schemas: schemas, lease: lease, estimate: estimate, context: &context)
        }
        try OnlinePreconditions(plan: plan, schemas: schemas, tenant: tenant).check(on: connection)
        let created = OnlineContext(run: tenantRun, plan: online, record: record, schemas: schemas, capture: ChangeCapture(schemas: schemas, lease: lease))
        context = created
        created.progress.estimatedRows = estimate
        try created.removeLeftovers()
        created.log("migrating online (\(online.kind.rawValue)): " + online.summary.joined(separator: "; "))
        try created.prepare()
        try created.copy()
        try created.build()
        try created.catchUp()
        let statistics = try OnlineCutover(context: created).run()
        try created.finish()
        return migrated(created, statistics: statistics)
    }

    /// The result of the run of `context` once its cutover committed, with the statistics of its
    /// steps, logged with its progress; on plain PostgreSQL and on Citus alike.
    func migrated(_ context: OnlineContext, statistics: StepStatistics) -> TenantMigrationResult {
        let record = context.record
        let result = TenantMigrationResult(
            tenant: tenant, fromVersion: record.version, toVersion: tenantRun.destination.name, outcome: .migrated,
            attempts: context.progress.cutoverAttempts, statistics: statistics, milliseconds: tenantRun.elapsed(), online: context.progress
        )
        logger.info("migrated online \(record.version) → \(tenantRun.destination.name)", metadata: [
            "step": "\(record.version) → \(tenantRun.destination.name)", "rows_copied": "\(context.progress.rowsCopied)",
            "changes": "\(context.progress.changesCaughtUp)", "rounds": "\(context.progress.rounds)",
            "writes_blocked_ms": "\(Int(context.progress.writesBlockedMilliseconds))",
            "reads_blocked_ms": "\(Int(context.progress.readsBlockedMilliseconds))", "ms": "\(Int(tenantRun.elapsed()))",
        ])
        return result
    }

    /// The tenant's rows as `--online-above` weighs them; with plain `--online`, the same estimate
    /// for the report, a never-analyzed table counted up to ``reportedCountBound`` rows.
    func estimatedRows(_ online: OnlinePlan, record: TenantRecord) throws -> Int? {
        let bound = if case let .above(rows) = tenantRun.request.online { rows } else { Self.reportedCountBound }
        return try TenantSize.estimatedRows(of: online.plan.source, inSchema: record.schema, upTo: bound, on: connection)
    }

    /// How far plain `--online` counts a table without planner statistics for its report.
    static let reportedCountBound = 1_000_000

    /// The progress of a tenant that runs offline after all, or nil when it runs online: a
    /// catalog-only plan (nothing to copy, nothing to restore), or a tenant no bigger than
    /// `--online-above` (`estimate`, its rows).
    private func offlineChoice(_ online: OnlinePlan, record: TenantRecord, estimate: Int?) throws -> OnlineProgress? {
        if case let .above(rows) = tenantRun.request.online, let estimate {
            if estimate <= rows {
                var progress = OnlineProgress(mode: "offline", reason: "about \(estimate) rows, not above \(rows)")
                progress.estimatedRows = estimate
                return progress
            }
        }
        if online.kind == .catalogOnly, try !TenantSize.hasArchivedValuesToRestore(online.plan, inSchema: record.schema, on: connection) {
            return OnlineProgress(mode: OnlineStepMode.Kind.catalogOnly.rawValue, reason: "every step changes only the catalog")
        }
        return nil
    }
}

/// An online run stopped by the fleet (Ctrl-C, SIGTERM) before its cutover: nothing changed.
struct OnlineStopped: Error {
    let fromVersion: String
}

/// Why a tenant cannot migrate online; nothing was touched.
public struct OnlineRefusal: Error, Sendable, CustomStringConvertible {
    public let tenant: TenantName
    public let reason: String
    /// The SQLSTATE it reports, when PostgreSQL's terms name the reason: 0A000 (feature not
    /// supported) for what the run inside the tenant's schema on Citus does not cover.
    public var sqlState: SQLState?

    init(tenant: TenantName, reason: String, sqlState: SQLState? = nil) {
        self.tenant = tenant
        self.reason = reason
        self.sqlState = sqlState
    }

    public var description: String { "tenant \(tenant) cannot migrate online: \(reason); nothing was changed" }
}
