import PostgresTestSupport

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
