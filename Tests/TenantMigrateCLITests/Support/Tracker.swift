import LibPQ
import PostgresTestSupport
import Testing

/// `tenant-migrate <arguments>`, the executable, on `conninfo`'s database and the Tracker family
/// (whose v1 → v2 narrows a priority; `PackagePaths.trackerFamily`).
func tracker(_ arguments: [String], on conninfo: String) async throws -> TenantMigrateExecutable.Output {
    try await TenantMigrateExecutable.run(arguments, database: conninfo, migrations: PackagePaths.trackerFamily)
}

/// `tenant-migrate <arguments>`, the executable, on `conninfo`'s database and the BugTracker family
/// (`PackagePaths.bugTrackerFamily`).
func bugTracker(_ arguments: [String], on conninfo: String) async throws -> TenantMigrateExecutable.Output {
    try await TenantMigrateExecutable.run(arguments, database: conninfo, migrations: PackagePaths.bugTrackerFamily)
}

/// Creates tenant `acme` at v1 by running `tenantMigrate` (``tracker(_:on:)`` or
/// ``bugTracker(_:on:)``) on `conninfo`'s database, expects it to succeed, and returns a connection
/// to that database.
func acmeAtV1(
    _ tenantMigrate: ([String], String) async throws -> TenantMigrateExecutable.Output, on conninfo: String
) async throws -> Connection {
    #expect(try await tenantMigrate(["tenant", "create", "acme", "--version", "v1"], conninfo).status == 0)
    return try Connection(conninfo)
}
