import LibPQ
import TenantMigrator

/// Sign-up: the tenant's schema at the latest version, in one transaction (or the tenant as it is,
/// when it exists).
func signUp(_ name: String, migrator: TenantMigrator) async throws -> TenantRecord {
    if let existing = try await migrator.tenant(named: name) { return existing }
    return try await migrator.createTenant(name)
}

struct UnknownTenant: Error {
    var name: String
}

/// A request for tenant `name`: bring it up to date, then read its tables on the app's own
/// connection, pointed at the tenant's schema for one transaction.
func recipeCount(tenant name: String, migrator: TenantMigrator, appConnection: AsyncConnection) async throws -> Int64 {
    // Nothing at all when the tenant is known current; else one catalog query, and the migration
    // if it is behind. A pinned tenant is left where it is (outcome .pinned).
    _ = try await migrator.migrateIfNeeded(tenant: name)
    guard let tenant = try await migrator.tenantSession(for: name) else { throw UnknownTenant(name: name) }
    return try await appConnection.transaction { connection in
        // is_local = true: the search path lasts until the transaction ends.
        _ = try connection.execute("SELECT pg_catalog.set_config('search_path', $1, true)", [tenant.searchPath])
        return try connection.execute("SELECT pg_catalog.count(*) FROM recipe")[0].decode(Int64.self, at: 0)
    }
}
