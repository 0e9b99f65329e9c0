import EntityModel
import Foundation
import Instrumentation
import LibPQ
import MigrationEngine
import TypedSQL

extension TenantMigrator {
    /// The executor that migrates one tenant safely (tenant lock, lock_timeout, retries).
    public var executor: TenantExecutor {
        TenantExecutor(catalog: catalog, planner: planner, settings: settings)
    }

    @available(*, deprecated, renamed: "executor")
    public var runner: TenantExecutor { executor }

    // MARK: - Planning (runs nothing)

    /// Plans the path from the tenant's recorded version to `target` (the latest when nil).
    public func plan(tenant: String, to target: String? = nil) async throws -> MigrationPlan {
        try await withTenantPlan(tenant: tenant, to: target) { plan, _, _ in plan }
    }

    /// Plans the path between two versions, offline.
    public func plan(from source: String, to destination: String) throws -> MigrationPlan {
        try TenantMigratorError.reporting { try planner.plan(from: source, to: destination) }
    }

    /// Checks every adjacent pair of the family in both directions: mapped, inferred or impossible.
    public func checkFamily() -> [MigrationPlanner.PairCheck] {
        planner.checkFamily()
    }

    /// The plan from the tenant's recorded version to `target` as a document: the exact SQL of
    /// every step rendered for the tenant's schema, and what the tenant's archive gives back on the
    /// way, and how each step runs online (on Citus, also what the run refuses there). Reads the
    /// catalog; changes nothing.
    public func planDocument(tenant: String, to target: String? = nil) async throws -> PlanDocument {
        try await withTenantPlan(tenant: tenant, to: target) { plan, record, connection in
            var document = PlanDocument(plan: plan, tenant: record.name.rawValue, schema: record.schema,
                                        givenBack: try ArchiveGivenBack.along(plan, inSchema: record.schema, on: connection))
            if try connection.capabilities.swapsShadowsInByRenames { document.onCitus(plan) }
            return document
        }
    }

    /// The plan between two versions as a document, its SQL rendered for `schema` (a placeholder
    /// by default). Needs no database.
    public func planDocument(from source: String, to destination: String, schema: String = "<tenant schema>") throws -> PlanDocument {
        PlanDocument(plan: try plan(from: source, to: destination), schema: schema)
    }

    /// Plans the path from `tenant`'s recorded version to `target` (the latest when nil), and hands
    /// `body` the plan, the tenant's record and the catalog's connection.
    private func withTenantPlan<T: Sendable>(
        tenant: String, to target: String?, _ body: @escaping @Sendable (MigrationPlan, TenantRecord, Connection) throws -> T
    ) async throws -> T {
        let name = try TenantName(tenant)
        let catalog = self.catalog, planner = self.planner, family = self.family
        let destination = try TenantMigratorError.reporting { try family.requireVersion(named: target).name }
        return try await withExistingCatalog(absent: { throw TenantMigratorError.unknownTenant(name) }) { connection in
            let record = try catalog.requireTenant(name, on: connection)
            guard record.family == family.name else {
                throw TenantMigratorError.familyMismatch(tenant: name, recorded: record.family, configured: family.name)
            }
            return try body(try planner.plan(from: record.version, to: destination), record, connection)
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
        let executor = self.executor
        // The caller's trace context (a request span), carried to the connection's thread: the
        // tenant's span becomes its child.
        let context = ServiceContext.current
        let body: @Sendable (Connection) throws -> TenantMigrationResult = { connection in
            try ServiceContext.withValue(context) { try executor.migrate(name, request, on: connection) }
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
