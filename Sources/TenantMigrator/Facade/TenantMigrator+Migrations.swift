import EntityModel
import Foundation
import Instrumentation
import LibPQ
import MigrationEngine
import TypedSQL

extension TenantMigrator {
    /// The runner that migrates one tenant safely (tenant lock, lock_timeout, retries).
    public var runner: TenantExecutor {
        TenantExecutor(catalog: catalog, planner: planner, settings: settings)
    }

    // MARK: - Planning (runs nothing)

    /// Plans the path from the tenant's recorded version to `target` (the latest when nil).
    public func plan(tenant: String, to target: String? = nil) async throws -> MigrationPlan {
        try await planReportAndPlan(tenant: tenant, to: target).plan
    }

    /// Plans the path between two versions, offline.
    public func plan(from source: String, to destination: String) throws -> MigrationPlan {
        try TenantMigratorError.reporting { try planner.plan(from: source, to: destination) }
    }

    /// Checks every adjacent pair of the family in both directions: mapped, inferred or impossible.
    public func checkFamily() -> [MigrationPlanner.PairCheck] {
        planner.checkFamily()
    }

    /// The plan from the tenant's recorded version to `target`, with the exact SQL of every step
    /// rendered for the tenant's schema. Reads the catalog; changes nothing.
    public func planReport(tenant: String, to target: String? = nil) async throws -> MigrationPlanReport {
        try await planReportAndPlan(tenant: tenant, to: target).report
    }

    /// The plan between two versions, with its SQL rendered for `schema` (a placeholder by default).
    /// Needs no database.
    public func planReport(from source: String, to destination: String, schema: String = "<tenant schema>") throws -> MigrationPlanReport {
        MigrationPlanReport(plan: try plan(from: source, to: destination), tenant: nil, schema: schema)
    }

    /// ``planReport(tenant:to:)`` and the plan it shows, for a document drawn from the plan itself
    /// (`plan --format html`) without planning twice.
    public func planReportAndPlan(tenant: String, to target: String?) async throws -> (plan: MigrationPlan, report: MigrationPlanReport) {
        let name = try TenantName(tenant)
        let catalog = self.catalog, planner = self.planner, family = self.family
        let destination = try TenantMigratorError.reporting { try family.requireVersion(named: target).name }
        return try await withExistingCatalog(absent: { throw TenantMigratorError.unknownTenant(name) }) { connection in
            let record = try catalog.requireTenant(name, on: connection)
            guard record.family == family.name else {
                throw TenantMigratorError.familyMismatch(tenant: name, recorded: record.family, configured: family.name)
            }
            let plan = try planner.plan(from: record.version, to: destination)
            var report = MigrationPlanReport(plan: plan, tenant: name.rawValue, schema: record.schema)
            report.givenBack = try ArchiveGivenBack.along(plan, inSchema: record.schema, on: connection)
            return (plan, report)
        }
    }

    // MARK: - Migrating

    /// Migrates `tenant` forward to `target` (the latest when nil), in one transaction.
    ///
    /// - Throws: ``TenantMigrationError`` when the plan drops data and `allowDestructive` is false,
    ///   when `target` is older than the tenant's version (use ``rollback(tenant:to:allowDestructive:mode:)``),
    ///   or when the migration fails (it is then rolled back and recorded).
    ///
    /// With `mode` ``MigrationRunMode/dryRun`` or ``MigrationRunMode/rehearse``, the migration runs
    /// for real and is then rolled back: nothing changes and nothing is recorded.
    ///
    /// A pinned tenant (``TenantRecord/pinnedVersion``) moves too, and its pin is cleared: naming one
    /// tenant is the operator's decision to move it. Pass `pins: .respect` to leave it alone instead
    /// (outcome ``TenantMigrationResult/Outcome/pinned``), as for a list of tenants.
    public func migrate(
        tenant: String, to target: String? = nil, allowDestructive: Bool = false, mode: MigrationRunMode = .apply,
        pins: PinPolicy = .override
    ) async throws -> TenantMigrationResult {
        try await migrate(tenant: tenant, .migrate(to: target, allowDestructive: allowDestructive, mode: mode, pins: pins))
    }

    /// Migrates `tenant` back to the older (or same) version `target`, in one transaction. Rolling
    /// back past a step that drops data needs `allowDestructive`.
    ///
    /// The tenant is then pinned at `target` (reason `rolled back`), so that `migrateIfNeeded` and
    /// fleet runs leave it there until it is migrated by name or unpinned (``unpin(tenant:)``).
    /// `pins` is as for ``migrate(tenant:to:allowDestructive:mode:pins:)``.
    public func rollback(
        tenant: String, to target: String, allowDestructive: Bool = false, mode: MigrationRunMode = .apply,
        pins: PinPolicy = .override
    ) async throws -> TenantMigrationResult {
        try await migrate(tenant: tenant, .rollback(to: target, allowDestructive: allowDestructive, mode: mode, pins: pins))
    }

    /// Migrates `tenant` to the latest version if it is not there yet. When it is, this costs one
    /// catalog query on a pooled connection and takes no lock, and once the tenant is known to be
    /// current (see ``CurrentTenantCache``), nothing at all: no session, no round trip. A pinned
    /// tenant is left where it is (outcome ``TenantMigrationResult/Outcome/pinned``), found by the
    /// same query.
    public func migrateIfNeeded(tenant: String) async throws -> TenantMigrationResult {
        let name = try TenantName(tenant)
        let catalog = self.catalog, family = self.family
        let latest = family.latestVersion.name
        let started = ContinuousClock.now
        func leftAlone(_ outcome: TenantMigrationResult.Outcome, at version: String) -> TenantMigrationResult {
            let elapsed = Duration.since(started)
            settings.observability.recordTenant(outcome, family: family.name, mode: .apply, duration: elapsed)
            return TenantMigrationResult(
                tenant: name, fromVersion: version, toVersion: latest, outcome: outcome, attempts: 0,
                milliseconds: elapsed.inMilliseconds
            )
        }
        if let currentTenants {
            if currentTenants.isCurrent(name) { return leftAlone(.alreadyCurrent, at: latest) }
            await currentTenants.startListening()
        }
        let mark = currentTenants?.mark()
        let current: TenantRecord? = try await withPlainConnection { connection in
            do {
                return try catalog.tenant(name, on: connection)
            } catch SQLState.undefinedTable {
                return nil  // no catalog yet; `migrate` installs it and reports the unknown tenant
            } catch SQLState.invalidSchemaName {
                return nil
            }
        }
        if let current, current.family == family.name {
            switch current.standing(toward: latest) {
            case .current:
                if let mark { currentTenants?.remember(name, since: mark) }
                return leftAlone(.alreadyCurrent, at: latest)
            case let .pinned(at: version):
                return leftAlone(.pinned, at: version)
            case .elsewhere:
                break
            }
        }
        // Pinned since that query: still left alone.
        return try await migrate(tenant: tenant, .migrate(pins: .respect))
    }

    /// Moves `tenant` as `request` asks, in one transaction (see ``TenantExecutor``).
    /// A trial (``MigrationRunMode/dryRun``, ``MigrationRunMode/rehearse``) writes nothing, not
    /// even the catalog.
    public func migrate(tenant: String, _ request: MigrationRequest) async throws -> TenantMigrationResult {
        let name = try TenantName(tenant)
        _ = try TenantMigratorError.reporting { try family.requireVersion(named: request.target) }
        let runner = self.runner
        // The caller's trace context (a request span), carried to the connection's thread: the
        // tenant's span becomes its child.
        let context = ServiceContext.current
        let body: @Sendable (Connection) throws -> TenantMigrationResult = { connection in
            try ServiceContext.withValue(context) { try runner.migrate(name, request, on: connection) }
        }
        guard request.mode.isTrial else { return try await withConnection(body) }
        return try await withExistingCatalog(absent: { throw TenantMigratorError.unknownTenant(name) }, body)
    }

    /// Runs `body` on a pooled connection WITHOUT installing the catalog (for read-only work).
    func withPlainConnection<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let pool = connectionPool
        return try await TenantMigratorError.reporting { try await pool.withConnection(body) }
    }
}

/// A plan as `tenant-migrate plan` shows it: every step with its exact SQL and the data it drops.
public struct MigrationPlanReport: Sendable, Codable {
    public struct Step: Sendable, Codable {
        /// `v1 → v2: inferred`, `v2 → v3: mapped by …`.
        public var title: String
        public var source: String
        public var destination: String
        /// The versions a fused step walks through.
        public var versions: [String]
        /// The SQL (or the description of a Swift policy's stages) the step runs.
        public var statements: [String]
        public var destructiveChanges: [DestructiveChange]
        /// Losses limited to rows a predicate selects: counted when the step runs.
        public var dataDependentLosses: [DestructiveChange]
        /// What the step destroys or overwrites that the archive keeps (it comes back on the way down).
        public var archived: [DestructiveChange]
        /// What is truly lost even with the archive (needs `--allow-destructive`).
        public var lost: [DestructiveChange]
        /// How the step runs when the tenant migrates online (`--online`), and why.
        public var online: OnlineStepMode?
    }

    /// The tenant, when planned for one.
    public var tenant: String?
    /// The schema the SQL is rendered for.
    public var schema: String
    public var family: String
    public var source: String
    public var destination: String
    public var direction: MigrationDirection
    public var steps: [Step]
    /// Planned for a tenant: what its archive gives back on the way, per pair the plan crosses,
    /// counted per entity and attribute (empty when nothing; nil when planned without a tenant).
    public var givenBack: [ArchiveGivenBack]?

    /// Every change that drops data, over all steps.
    public var destructiveChanges: [DestructiveChange] { steps.flatMap(\.destructiveChanges) }
    /// Every loss that depends on the tenant's data, over all steps.
    public var dataDependentLosses: [DestructiveChange] { steps.flatMap(\.dataDependentLosses) }
    public var isEmpty: Bool { steps.isEmpty }
    /// What the archive keeps, over all steps.
    public var archived: [DestructiveChange] { steps.flatMap(\.archived) }
    /// What is truly lost with the archive, over all steps.
    public var lost: [DestructiveChange] { steps.flatMap(\.lost) }

    public init(plan: MigrationPlan, tenant: String?, schema: String, quoting: some SQLQuoting = .postgreSQL) {
        self.tenant = tenant
        self.schema = schema
        self.family = plan.family
        self.source = plan.source.name
        self.destination = plan.destination.name
        self.direction = plan.direction
        self.steps = plan.describe(inSchema: schema, quoting: quoting).map { step, statements in
            Step(
                title: step.description, source: step.source.name, destination: step.destination.name,
                versions: step.versions.map(\.name), statements: statements,
                destructiveChanges: step.destructiveChanges,
                dataDependentLosses: step.account.dataDependentLosses,
                archived: step.account.archivedChanges,
                lost: step.account.lostChanges(archiving: true),
                online: step.onlineMode
            )
        }
    }
}
