import LibPQ
import TenantMigrator

/// ``fixtureTenant(_:_:version:policies:insert:)``'s tenant `acme`, made at v1 with the rows
/// `insert` adds and migrated up to v2: what the way up archived is there to give back.
func fixtureTenantMigratedToV2(_ family: String, _ conninfo: String, insert: String) async throws -> (migrator: TenantMigrator, connection: Connection, schema: String) {
    let tenant = try await fixtureTenant(family, conninfo, insert: insert)
    _ = try await tenant.migrator.migrate(tenant: "acme", to: "v2")
    return tenant
}
