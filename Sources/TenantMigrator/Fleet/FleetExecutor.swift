import EntityModel
import Foundation
import Instrumentation
import LibPQ
import Logging
import MigrationEngine

/// Migrates (or rolls back) many tenants over N connections at once: the deployment-time run.
///
/// One round trip to the catalog counts the selected tenants already at the target and reads the
/// others (``TenantCatalog/fleetStanding(family:target:selection:listingCurrent:on:)``): those at
/// the target are skipped and pinned ones (``TenantRecord/pinnedVersion``) left alone without
/// opening another connection, so a deploy with nothing to do costs one round trip that reads no
/// tenant's row, however large the fleet. What is the same for every tenant at one version (the
/// plan, what it loses) is worked out once per run (``PlanCache``). Each other
/// tenant migrates in its own transaction through ``TenantExecutor``; a failure is recorded
/// and the run goes on (unless ``failFast``). Two fleet runs on the same fleet never migrate a
/// tenant twice: each re-reads each tenant's version under its lock (its catalog row).
public struct FleetExecutor: Sendable {
    /// Migrates each tenant, with the migrator's ``MigrationSettings``.
    public var tenantExecutor: TenantExecutor
    @available(*, deprecated, renamed: "tenantExecutor")
    public var runner: TenantExecutor {
        get { tenantExecutor }
        set { tenantExecutor = newValue }
    }
    /// What every tenant is asked (pins are always respected: a fleet never moves a pinned tenant).
    public var request: MigrationRequest
    /// Which tenants, how many at once.
    public var fleet: FleetRequest
    /// Connections used at once.
    public var jobs: Int {
        get { fleet.jobs }
        set { fleet.jobs = newValue }
    }
    /// Stop taking tenants after the first failure.
    public var failFast: Bool {
        get { fleet.failFast }
        set { fleet.failFast = newValue }
    }
    /// Where sessions go when the run opens its own (``connections`` nil).
    public var connectionString: String = ""
    /// Whether the report lists each tenant already at the target (``FleetRequest/listsCurrentTenants``).
    public var listsCurrentTenants: Bool {
        get { fleet.listsCurrentTenants }
        set { fleet.listsCurrentTenants = newValue }
    }
    public var logger: Logger
    /// Where the run's connections come from; nil: sessions from ``connectionString``, opened for
    /// the run and closed after it.
    var connections: ConnectionSource?

    public init(tenantExecutor: TenantExecutor, request: MigrationRequest, fleet: FleetRequest, logger: Logger = Logger(label: "TenantMigrator.fleet")) {
        self.tenantExecutor = tenantExecutor
        self.request = request
        self.request.pins = .respect
        self.fleet = fleet
        self.logger = logger
    }

    public init(
        tenantExecutor: TenantExecutor, request: MigrationRequest, jobs: Int = 4, failFast: Bool = false,
        logger: Logger = Logger(label: "TenantMigrator.fleet")
    ) {
        self.init(tenantExecutor: tenantExecutor, request: request, fleet: FleetRequest(jobs: jobs, failFast: failFast), logger: logger)
    }

    @available(*, deprecated, renamed: "init(tenantExecutor:request:fleet:logger:)")
    public init(runner: TenantExecutor, request: MigrationRequest, fleet: FleetRequest, logger: Logger = Logger(label: "TenantMigrator.fleet")) {
        self.init(tenantExecutor: runner, request: request, fleet: fleet, logger: logger)
    }

    @available(*, deprecated, renamed: "init(tenantExecutor:request:jobs:failFast:logger:)")
    public init(
        runner: TenantExecutor, request: MigrationRequest, jobs: Int = 4, failFast: Bool = false,
        logger: Logger = Logger(label: "TenantMigrator.fleet")
    ) {
        self.init(tenantExecutor: runner, request: request, jobs: jobs, failFast: failFast, logger: logger)
    }

    @available(*, deprecated, message: "use init(tenantExecutor:request:jobs:failFast:logger:)")
    public init(
        connectionString: String, runner: TenantExecutor, jobs: Int = 4, failFast: Bool = false,
        allowDestructive: Bool = false, direction: MigrationDirection = .up,
        logger: Logger = Logger(label: "TenantMigrator.fleet")
    ) {
        self.init(tenantExecutor: runner, request: MigrationRequest(direction == .down ? .rollback : .migrate, allowDestructive: allowDestructive),
                  jobs: jobs, failFast: failFast, logger: logger)
        self.connectionString = connectionString
    }

    @available(*, deprecated, message: "set the target in request, then call run(selection:control:progress:)")
    public func run(
        to target: String?, selection: TenantSelection = .all, control: FleetControl = FleetControl(),
        progress: (@Sendable (FleetProgress) -> Void)? = nil
    ) async throws -> FleetReport {
        var fleet = self
        fleet.request.target = target
        return try await fleet.run(selection: selection, control: control, progress: progress)
    }

    /// Moves `selection`'s tenants (not ``fleet``'s) to the request's target.
    public func run(
        selection: TenantSelection,
        control: FleetControl = FleetControl(),
        progress: (@Sendable (FleetProgress) -> Void)? = nil
    ) async throws -> FleetReport {
        var executor = self
        executor.fleet.selection = selection
        return try await executor.run(control: control, progress: progress)
    }

    /// Moves the fleet request's tenants to the request's target (the family's latest when nil).
    public func run(control: FleetControl = FleetControl(), progress: (@Sendable (FleetProgress) -> Void)? = nil) async throws -> FleetReport {
        let target = try tenantExecutor.family.requireVersion(named: request.target).name
        var request = self.request
        request.target = target
        let startedAt = Date(), clock = ContinuousClock(), started = clock.now
        let source = connections ?? .dedicated(MigratorSession(connectionString: connectionString, logger: logger))
        let first = try await source.take(tenantExecutor.settings.reconnectTimeout)
        let plan: FleetPlan
        do {
            plan = try await self.plan(target: target, selection: fleet.selection, on: first)
        } catch {
            await source.giveBack(first, true)
            throw error
        }
        // Found current or pinned by the one query: counted in one increment, at no per-tenant cost.
        let family = tenantExecutor.family.name
        tenantExecutor.observability.countTenants(.alreadyCurrent, family: family, mode: request.mode, by: plan.currentCount)
        tenantExecutor.observability.countTenants(.pinned, family: family, mode: request.mode, by: plan.pinned.count)
        var report = FleetReport(family: family, target: target, startedAt: startedAt, milliseconds: 0, interrupted: false,
                                 entries: plan.settledEntries(family: family))
        report.mode = request.mode
        report.unlistedCurrent = plan.unlistedCurrent
        if plan.pending.isEmpty {
            await source.giveBack(first, true)
        } else {
            let lines = try await move(plan.pending, request, source: source, first: first, control: control, progress: progress)
            report.entries += zip(plan.pending, lines).map { record, line in
                line?.entry ?? .init(tenant: record.name.rawValue, outcome: .notStarted, fromVersion: record.version, toVersion: target, milliseconds: 0)
            }
            report.entries.sort { $0.tenant < $1.tenant }
            report.interrupted = control.isStopped || Task.isCancelled
        }
        report.milliseconds = (clock.now - started).inMilliseconds
        return report
    }

    /// The run's plan, from the catalog's one round trip on `first` (which installs or upgrades
    /// the catalog, unless the run is a trial, which writes nothing). Throws when a version the
    /// pending tenants are at has a changed model file.
    func plan(target: String, selection: TenantSelection, on first: AsyncConnection) async throws -> FleetPlan {
        let family = tenantExecutor.family, catalog = tenantExecutor.catalog, isTrial = request.mode.isTrial
        // The names of the tenants at the target are read only when the report lists them, or to
        // tell which of the selected names are unknown.
        let listsCurrent = listsCurrentTenants, readsCurrentNames = listsCurrent || !selection.names.isEmpty
        let plan = try await first.withConnection { connection -> FleetPlan in
            if isTrial {
                guard try catalog.isInstalled(on: connection) else {
                    return FleetPlan(target: target, elsewhere: [], currentCount: 0, currentNames: [], selection: selection, listingCurrent: listsCurrent)
                }
            } else {
                try catalog.install(on: connection)
            }
            let standing = try catalog.fleetStanding(family: family.name, target: target, selection: selection, listingCurrent: readsCurrentNames, on: connection)
            return FleetPlan(target: target, elsewhere: standing.elsewhere, currentCount: standing.currentCount, currentNames: standing.currentNames,
                             selection: selection, listingCurrent: listsCurrent)
        }
        if !tenantExecutor.acceptModelChange, let changed = Self.changedModel(plan.pending, family: family) { throw changed }
        return plan
    }

    /// Moves `pending` over `jobs` connections (the first one already taken), each tenant in its
    /// own transaction: one report line per tenant, nil for those that never started.
    func move(
        _ pending: [TenantRecord], _ request: MigrationRequest, source: ConnectionSource, first: AsyncConnection,
        control: FleetControl, progress: (@Sendable (FleetProgress) -> Void)?
    ) async throws -> [TenantLine?] {
        let tracker = ProgressTracker(total: pending.count, callback: progress)
        var executor = self.tenantExecutor
        executor.plans = PlanCache()
        // A run that writes installed (or upgraded) the catalog in plan(target:selection:on:).
        executor.catalogIsCurrent = !request.mode.isTrial
        let failFast = self.failFast, each = executor
        // The caller's trace context (a request or deploy span): each tenant's span becomes its child.
        let context = ServiceContext.current
        let fanOut = FanOut(jobs: jobs, source: source, reconnectTimeout: executor.settings.reconnectTimeout, control: control,
                            renewingAfter: executor.settings.tenantsPerSession.map { max(1, $0) })
        return try await fanOut.run(
            pending, first: first,
            work: { record, connection in
                ServiceContext.withValue(context) {
                    Self.migrate(record, request, executor: each, control: control, on: connection)
                }
            },
            recover: { line, connection in
                // The connection died during the tenant: record its failure on the new one.
                guard let failure = line.unrecorded else { return line }
                _ = each.recordFailure(failure, startedAt: Date(), logger: each.logger(for: failure.tenant, connection), on: connection)
                return TenantLine(entry: line.entry, unrecorded: nil)
            },
            onDone: { line in
                await tracker.record(failed: line.entry.outcome == .failed)
                // Not control.stop(): two failures at once must not cancel the healthy tenants in flight.
                if failFast, line.entry.outcome == .failed { control.haltAfterFailure() }
            }
        )
    }
}
