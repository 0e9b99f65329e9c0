import EntityModel
import Foundation
import MigrationEngine

extension TenantMigrator {
    /// Migrates every selected tenant to `target` (the latest when nil) over `jobs` connections.
    /// Tenants already there are skipped after one catalog query; failures are reported per tenant
    /// and do not stop the others unless `failFast`. A trial `mode` rolls every tenant back.
    public func migrateAll(
        to target: String? = nil, selection: TenantSelection = .all, jobs: Int = 4, failFast: Bool = false,
        allowDestructive: Bool = false, mode: MigrationRunMode = .apply, control: FleetControl = FleetControl(),
        progress: (@Sendable (FleetProgress) -> Void)? = nil
    ) async throws -> FleetReport {
        try await moveAll(.migrate(to: target, allowDestructive: allowDestructive, mode: mode), selection: selection, jobs: jobs,
                          failFast: failFast, control: control, progress: progress)
    }

    /// Rolls every selected tenant back to `target`.
    public func rollbackAll(
        to target: String, selection: TenantSelection = .all, jobs: Int = 4, failFast: Bool = false,
        allowDestructive: Bool = false, mode: MigrationRunMode = .apply, control: FleetControl = FleetControl(),
        progress: (@Sendable (FleetProgress) -> Void)? = nil
    ) async throws -> FleetReport {
        try await moveAll(.rollback(to: target, allowDestructive: allowDestructive, mode: mode), selection: selection, jobs: jobs,
                          failFast: failFast, control: control, progress: progress)
    }

    /// Moves every selected tenant as `request` asks, over `jobs` connections. A fleet never moves
    /// a pinned tenant, whatever the request's ``MigrationRequest/pins`` say.
    ///
    /// - Parameter listingCurrentTenants: whether the report lists each tenant already at the target
    ///   (``FleetExecutor/listsCurrentTenants``); off, they are only counted, and a run over a large
    ///   fleet with nothing to do reads and holds nothing per tenant.
    public func moveAll(
        _ request: MigrationRequest, selection: TenantSelection = .all, jobs: Int = 4, failFast: Bool = false,
        listingCurrentTenants: Bool = true, control: FleetControl = FleetControl(), progress: (@Sendable (FleetProgress) -> Void)? = nil
    ) async throws -> FleetReport {
        try await moveAll(request, fleet: FleetRequest(selection: selection, jobs: jobs, failFast: failFast, listsCurrentTenants: listingCurrentTenants),
                          control: control, progress: progress)
    }

    /// Moves the tenants `fleet` selects as `request` asks. A fleet never moves a pinned tenant,
    /// whatever the request's ``MigrationRequest/pins`` say.
    public func moveAll(
        _ request: MigrationRequest, fleet: FleetRequest, control: FleetControl = FleetControl(), progress: (@Sendable (FleetProgress) -> Void)? = nil
    ) async throws -> FleetReport {
        let executor = self.fleet(request, fleet)
        return try await TenantMigratorError.reporting {
            try await executor.run(control: control, progress: progress)
        }
    }

    /// Creates many tenants at `version` (the latest when nil) in parallel.
    public func createTenants(
        _ names: [String], version: String? = nil, access: TenantAccess = TenantAccess(), jobs: Int = 4,
        control: FleetControl = FleetControl(), progress: (@Sendable (FleetProgress) -> Void)? = nil
    ) async throws -> FleetReport {
        let names = try names.map(TenantName.init)
        let lifecycle = TenantLifecycle(catalog: catalog.trusting(access.owner), family: family)
        let connections = ConnectionSource.pooled(connectionPool, jobs: jobs)
        return try await TenantMigratorError.reporting {
            try await lifecycle.createMany(names, version: version, access: access, jobs: jobs,
                                           connections: connections, control: control, progress: progress)
        }
    }

    /// The fleet for `request`, over this migrator's pool and settings.
    func fleet(_ request: MigrationRequest, _ fleet: FleetRequest) -> FleetExecutor {
        var executor = FleetExecutor(tenantExecutor: self.executor, request: request, fleet: fleet, logger: logger)
        executor.connectionString = connectionString
        executor.connections = .pooled(connectionPool, jobs: fleet.jobs)
        return executor
    }
}
