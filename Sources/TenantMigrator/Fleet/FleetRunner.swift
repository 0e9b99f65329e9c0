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
/// tenant migrates in its own transaction through ``TenantMigrationRunner``; a failure is recorded
/// and the run goes on (unless ``failFast``). Two runners on the same fleet never migrate a tenant
/// twice: the runner re-reads each tenant's version under its lock (its catalog row).
public struct FleetRunner: Sendable {
    /// Migrates each tenant, with the migrator's ``MigrationSettings``.
    public var runner: TenantMigrationRunner
    /// What every tenant is asked (pins are always respected: a fleet never moves a pinned tenant).
    public var request: MigrationRequest
    /// Connections used at once.
    public var jobs: Int
    /// Stop taking tenants after the first failure.
    public var failFast: Bool
    /// Where sessions go when the run opens its own (``connections`` nil).
    public var connectionString: String = ""
    /// Whether the report lists each tenant already at the target (an entry `skipped` each), or only
    /// counts them (``FleetReport/unlistedCurrent``): a run over a large fleet with nothing to do
    /// then holds nothing per tenant.
    public var listsCurrentTenants = true
    public var logger: Logger
    /// Where the run's connections come from; nil: sessions from ``connectionString``, opened for
    /// the run and closed after it.
    var connections: ConnectionSource?

    public init(
        runner: TenantMigrationRunner, request: MigrationRequest, jobs: Int = 4, failFast: Bool = false,
        logger: Logger = Logger(label: "TenantMigrator.fleet")
    ) {
        self.runner = runner
        self.request = request
        self.request.pins = .respect
        self.jobs = jobs
        self.failFast = failFast
        self.logger = logger
    }

    @available(*, deprecated, message: "use init(runner:request:jobs:failFast:logger:)")
    public init(
        connectionString: String, runner: TenantMigrationRunner, jobs: Int = 4, failFast: Bool = false,
        allowDestructive: Bool = false, direction: MigrationDirection = .up,
        logger: Logger = Logger(label: "TenantMigrator.fleet")
    ) {
        self.init(runner: runner, request: MigrationRequest(direction == .down ? .rollback : .migrate, allowDestructive: allowDestructive),
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

    /// Moves the selected tenants to the request's target (the family's latest when nil).
    public func run(
        selection: TenantSelection = .all,
        control: FleetControl = FleetControl(),
        progress: (@Sendable (FleetProgress) -> Void)? = nil
    ) async throws -> FleetReport {
        let family = runner.family
        let catalog = runner.catalog
        let target = try family.requireVersion(named: request.target).name
        var targeted = self.request
        targeted.target = target
        let request = targeted
        let startedAt = Date()
        let clock = ContinuousClock()
        let started = clock.now
        // The caller's trace context (a request or deploy span): each tenant's span becomes its child.
        let context = ServiceContext.current
        let source = connections ?? .dedicated(MigratorSession(connectionString: connectionString, logger: logger))
        let reconnectTimeout = runner.settings.reconnectTimeout
        let first = try await source.take(reconnectTimeout)
        let mode = request.mode
        let standing: FleetStanding
        // The names of the tenants at the target are read only when the report lists them, or to
        // tell which of the selected names are unknown.
        let listingCurrent = listsCurrentTenants || !selection.names.isEmpty
        do {
            standing = try await first.withConnection { connection -> FleetStanding in
                if mode.isTrial {
                    // A trial writes nothing, not even the catalog: no catalog, no tenants.
                    guard try catalog.isInstalled(on: connection) else { return FleetStanding(elsewhere: [], currentCount: 0, currentNames: []) }
                } else {
                    try catalog.install(on: connection)
                }
                return try catalog.fleetStanding(family: family.name, target: target, selection: selection, listingCurrent: listingCurrent, on: connection)
            }
        } catch {
            await source.giveBack(first, true)
            throw error
        }
        var entries: [FleetReport.Entry] = []
        var pending: [TenantRecord] = []
        var unlistedCurrent = 0
        if listsCurrentTenants, let names = standing.currentNames {
            entries = names.map { .init(tenant: $0, outcome: .skipped, fromVersion: target, toVersion: target, milliseconds: 0) }
        } else {
            unlistedCurrent = standing.currentCount
        }
        for record in standing.elsewhere {
            if case .pinned = record.standing(toward: target) {
                entries.append(.init(tenant: record.name.rawValue, outcome: .pinned, fromVersion: record.version, toVersion: target, milliseconds: 0))
            } else {
                pending.append(record)
            }
        }
        let found = Set(standing.elsewhere.map(\.name.rawValue) + (standing.currentNames ?? []))
        let unknown = selection.names.filter { !found.contains($0) }
        for name in unknown {
            entries.append(.init(tenant: name, outcome: .failed, fromVersion: "", toVersion: target, milliseconds: 0,
                                 error: "no tenant named \(name) in family \(family.name)"))
        }
        if let limit = selection.limit { pending = Array(pending.prefix(limit)) }
        if !runner.acceptModelChange, let changed = Self.changedModel(pending, family: family) {
            await source.giveBack(first, true)
            throw changed
        }
        // Found current by the one query: counted in one increment, at no per-tenant cost.
        runner.observability.countTenants(.alreadyCurrent, family: family.name, mode: mode, by: standing.currentCount)
        runner.observability.countTenants(.pinned, family: family.name, mode: mode, by: entries.count { $0.outcome == .pinned })
        func elapsed() -> Double { (clock.now - started).inMilliseconds }
        guard !pending.isEmpty else {
            await source.giveBack(first, true)
            var report = FleetReport(family: family.name, target: target, startedAt: startedAt, milliseconds: elapsed(), interrupted: false, entries: entries)
            report.mode = mode
            report.unlistedCurrent = unlistedCurrent
            report.entries.sort { $0.tenant < $1.tenant }
            return report
        }

        let tracker = ProgressTracker(total: pending.count, callback: progress)
        let runner = {
            var runner = self.runner
            runner.plans = PlanCache()
            // A run that writes installed (or upgraded) the catalog above.
            runner.catalogIsCurrent = !mode.isTrial
            return runner
        }()
        let failFast = self.failFast
        let outputs = try await fanOut(
            pending, jobs: jobs, source: source, reconnectTimeout: reconnectTimeout, control: control, firstConnection: first,
            renewingAfter: runner.settings.tenantsPerSession.map { max(1, $0) },
            work: { record, connection in
                ServiceContext.withValue(context) {
                    Self.migrate(record, request, runner: runner, control: control, on: connection)
                }
            },
            recover: { run, connection in
                // The connection died during the tenant: record its failure on the new one.
                guard let failure = run.unrecorded else { return run }
                _ = runner.recordFailure(failure, startedAt: Date(), logger: runner.logger(for: failure.tenant, connection), on: connection)
                return TenantLine(entry: run.entry, unrecorded: nil)
            },
            onDone: { run in
                await tracker.record(failed: run.entry.outcome == .failed)
                // Not control.stop(): two failures at once must not cancel the healthy tenants in flight.
                if failFast, run.entry.outcome == .failed { control.haltAfterFailure() }
            }
        )
        for (record, output) in zip(pending, outputs.map { $0?.entry }) {
            entries.append(output ?? .init(tenant: record.name.rawValue, outcome: .notStarted, fromVersion: record.version, toVersion: target, milliseconds: 0))
        }
        entries.sort { $0.tenant < $1.tenant }
        var report = FleetReport(family: family.name, target: target, startedAt: startedAt, milliseconds: elapsed(),
                                 interrupted: control.isStopped || Task.isCancelled, entries: entries)
        report.mode = mode
        report.unlistedCurrent = unlistedCurrent
        return report
    }

    /// One tenant's report line, and its failure when the connection died before it could be recorded.
    struct TenantLine: Sendable {
        var entry: FleetReport.Entry
        var unrecorded: TenantMigrationError?
    }

    /// The first version among `records` whose model file changed since its tenants reached it.
    static func changedModel(_ records: [TenantRecord], family: ModelFamily) -> TenantMigratorError? {
        let changed = records.filter { record in
            family.version(named: record.version).map { $0.versionHash != record.versionHash } ?? false
        }
        guard let version = changed.first?.version else { return nil }
        return .modelChanged(
            version: version, file: family.versionFile(version), tenants: changed.filter { $0.version == version }.map(\.name)
        )
    }

    /// One tenant, turned into a report line whatever happens.
    static func migrate(
        _ record: TenantRecord, _ request: MigrationRequest, runner: TenantMigrationRunner, control: FleetControl, on connection: Connection
    ) -> TenantLine {
        let target = request.target ?? runner.family.latestVersion.name
        let clock = ContinuousClock()
        let started = clock.now
        func milliseconds() -> Double { (clock.now - started).inMilliseconds }
        var runner = runner
        runner.control = control
        do {
            // Pinned since the fleet's query: still left alone.
            let result = try runner.migrate(record.name, request, expecting: record, on: connection)
            let outcome: FleetReport.Entry.Outcome = switch result.outcome {
            case .migrated: .migrated
            case .pinned: .pinned
            case .failed: .failed
            case .alreadyCurrent: .skipped
            }
            var entry = FleetReport.Entry(tenant: record.name.rawValue, outcome: outcome,
                                                fromVersion: result.fromVersion, toVersion: result.toVersion, milliseconds: result.milliseconds,
                                                rowsAffected: result.outcome == .migrated ? result.statistics.rowsAffected : nil, online: result.online)
            if result.outcome == .migrated, result.statistics.supersededEntries > 0 { entry.supersededEntries = result.statistics.supersededEntries }
            if result.outcome == .migrated, result.statistics.restoredEntries > 0 { entry.restoredEntries = result.statistics.restoredEntries }
            return TenantLine(entry: entry)
        } catch let error as TenantMigrationError where error.isInterruption {
            return TenantLine(entry: .init(tenant: record.name.rawValue, outcome: .notStarted, fromVersion: record.version,
                                          toVersion: target, milliseconds: milliseconds()))
        } catch let error as TenantMigrationError {
            return TenantLine(
                entry: .init(tenant: record.name.rawValue, outcome: .failed, fromVersion: error.fromVersion, toVersion: error.toVersion,
                             milliseconds: milliseconds(), error: error.description, sqlState: error.sqlState?.rawValue),
                unrecorded: error.isRecorded || !error.isRecordable ? nil : error
            )
        } catch {
            // Failed before the tenant's record was read (a lost connection, say): record it against
            // the version the fleet query found, once a connection is back.
            let failure = TenantMigrationError(
                tenant: record.name, fromVersion: record.version, toVersion: target, reason: .stepFailed,
                underlying: error, attempts: 1, milliseconds: milliseconds()
            )
            return TenantLine(
                entry: .init(tenant: record.name.rawValue, outcome: .failed, fromVersion: record.version, toVersion: target,
                             milliseconds: milliseconds(), error: "\(error)", sqlState: sqlState(of: error)?.rawValue),
                unrecorded: connection.isHealthy ? nil : failure
            )
        }
    }

    /// The SQLSTATE behind an error: a server error's own, or the one a constraint violation
    /// found by the validation stage wraps.
    static func sqlState(of error: (any Error)?) -> SQLState? {
        switch error {
        case let error as PQError: return error.sqlState
        case let error as ConstraintViolation: return error.underlying.sqlState
        default: return nil
        }
    }
}

/// Counts finished tenants and reports progress.
actor ProgressTracker {
    private let total: Int
    private var done = 0
    private var failed = 0
    private let started = ContinuousClock.now
    private let callback: (@Sendable (FleetProgress) -> Void)?

    init(total: Int, callback: (@Sendable (FleetProgress) -> Void)?) {
        self.total = total
        self.callback = callback
        callback?(FleetProgress(total: total, done: 0, failed: 0, elapsed: 0))
    }

    func record(failed isFailure: Bool) {
        done += 1
        if isFailure { failed += 1 }
        let elapsed = ContinuousClock.now - started
        callback?(FleetProgress(total: total, done: done, failed: failed,
                                elapsed: elapsed.inSeconds))
    }
}
