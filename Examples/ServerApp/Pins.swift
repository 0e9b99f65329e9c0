import TenantMigrator

/// Support holds a tenant where it is while they look into it: `migrateIfNeeded` and fleet runs
/// (and the boot service) leave it there.
func holdTenant(_ name: String, migrator: TenantMigrator) async throws {
    try await migrator.pin(tenant: name, reason: "support ticket 4711")
    if let record = try await migrator.tenant(named: name), let version = record.pinnedVersion {
        print("\(name) pinned at \(version): \(record.pinnedReason ?? "")")
    }
}

/// … and lets it go: the next `migrateIfNeeded` moves it on.
func releaseTenant(_ name: String, migrator: TenantMigrator) async throws {
    if try await migrator.unpin(tenant: name) {
        _ = try await migrator.migrateIfNeeded(tenant: name)
    }
}
