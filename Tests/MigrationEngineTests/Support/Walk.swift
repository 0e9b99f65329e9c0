import TenantMigrator

/// Takes tenant `acme` from version `start` to each of `versions` in turn, one call each: up
/// (`migrate`) where the version is later, back (`rollback`) where it is earlier. Returns the
/// last call's result.
@discardableResult
func walk(_ migrator: TenantMigrator, from start: String, _ versions: [String]) async throws -> TenantMigrationResult? {
    var current = start, last: TenantMigrationResult?
    for version in versions {
        last = version > current ? try await migrator.migrate(tenant: "acme", to: version) : try await migrator.rollback(tenant: "acme", to: version)
        current = version
    }
    return last
}
