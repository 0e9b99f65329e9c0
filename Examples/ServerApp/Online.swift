import TenantMigrator

/// A deploy that must not take the biggest customers offline: tenants with more than 100,000 rows
/// migrate online (built in a shadow schema while the app goes on, then swapped in by one short
/// transaction), the others in one transaction each, as usual (docs/Online.md).
func deployKeepingBigTenantsOnline(migrator: TenantMigrator) async throws {
    let report = try await migrator.moveAll(.migrate(online: .above(rows: 100_000)), jobs: 4)
    for entry in report.entries {
        guard let online = entry.online else { continue }
        print("\(entry.tenant): \(online.mode), \(online.rowsCopied) rows copied, "
            + "writes waited \(Int(online.writesBlockedMilliseconds)) ms, reads \(Int(online.readsBlockedMilliseconds)) ms")
    }
}
