import LibPQ
import TenantMigrator

/// ``fixtureTenant(_:_:version:policies:insert:)``'s tenant `acme`, made at v1 with the rows
/// `insert` adds and migrated up to v2: what the way up archived is there to give back.
func fixtureTenantMigratedToV2(_ family: String, _ conninfo: String, insert: String) async throws -> (migrator: TenantMigrator, connection: Connection, schema: String) {
    let tenant = try await fixtureTenant(family, conninfo, insert: insert)
    _ = try await tenant.migrator.migrate(tenant: "acme", to: "v2")
    return tenant
}

/// Fixture BugTracker's tenant `acme` at v2 with an issue of each of `statuses` (as the app wrote
/// them), ids 1, 2, … and summaries a, b, … in order, priority 1.
func bugTrackerTenant(_ conninfo: String, statuses: [String]) async throws -> (migrator: TenantMigrator, connection: Connection, schema: String) {
    let issues = statuses.enumerated().map { index, status in
        "(\(index + 1), '\(Character(Unicode.Scalar(UInt8(97 + index))))', '\(status)', 1)"
    }
    return try await fixtureTenant("BugTracker", conninfo, version: "v2",
                                   insert: "INSERT INTO {schema}.issue (id, summary, status, priority) VALUES " + issues.joined(separator: ", "))
}
