import EntityModel
import LibPQ
import MigrationEngine
import TenantMigrator

/// A tenant made over a newly installed default catalog, with the lifecycle and the executor a
/// test migrates and verifies it through on one connection (no migrator, no pool).
struct CatalogTenant {
    let name: TenantName
    let schema: String
    let catalog: TenantCatalog
    let lifecycle: TenantLifecycle
    let executor: TenantExecutor

    /// Installs the catalog on `connection` and creates tenant `name` at `version` of `family`.
    init(_ name: String = "acme", of family: ModelFamily, at version: String = "v1", on connection: Connection) throws {
        self.name = try TenantName(name)
        catalog = TenantCatalog()
        try catalog.install(on: connection)
        lifecycle = TenantLifecycle(catalog: catalog, family: family)
        schema = try lifecycle.create(self.name, version: version, on: connection).schema
        executor = TenantExecutor(catalog: catalog, planner: MigrationPlanner(family: family))
    }

    /// Moves the tenant as `request` asks.
    func migrate(_ request: MigrationRequest, on connection: Connection) throws -> TenantMigrationResult {
        try executor.migrate(name, request, on: connection)
    }

    /// The tenant's schema against its version's model.
    func verify(on connection: Connection) throws -> VerificationReport {
        try lifecycle.verify(name, on: connection)
    }
}
