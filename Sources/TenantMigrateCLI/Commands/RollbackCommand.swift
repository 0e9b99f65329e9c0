import ArgumentParser
import TenantMigrator

/// `tenant-migrate rollback`: move tenants back to an older version.
struct RollbackCommand: RunnerCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Migrate tenants back to an older version.",
        discussion: """
            A rollback is a downward migration along the family's versions, in one transaction per \
            tenant. Rolling back past a step that drops data (a column or table added since) needs \
            --allow-destructive.

            A rolled-back tenant is pinned at the version it reached, so that `migrate --all` and \
            the app's migrateIfNeeded leave it there. `migrate --tenant NAME` moves it forward again \
            (and clears the pin); `tenant unpin NAME` releases it. Pinned tenants are left alone by \
            --all, --match, --limit and several --tenant; a single --tenant rolls its tenant back anyway.
            """
    )

    @OptionGroup var options: GlobalOptions
    @Option(name: .long, help: ArgumentHelp("The tenant to roll back (repeatable).", valueName: "name")) var tenant: [String] = []
    @Option(help: ArgumentHelp("The version to roll back to.", valueName: "v")) var to: String
    @OptionGroup var migration: MigrationOptions
    @OptionGroup var fleet: FleetOptions

    func validate() throws {
        guard !tenant.isEmpty || fleet.isFleet else {
            throw ValidationError("name the tenants to roll back with --tenant (repeatable), or use --all, --match or --limit")
        }
        _ = try tenant.map(TenantName.init)
    }

    func perform() async throws {
        var migrator = try options.makeMigrator()
        migration.configure(&migrator)
        let target = to, allowDestructive = migration.allowDestructive, mode = migration.mode
        if fleet.isFleet {
            return try await runFleet(verb: "rolled back", json: migration.json) { control, progress in
                try await migrator.rollbackAll(
                    to: target, selection: fleet.selection(names: tenant), jobs: fleet.jobs, failFast: fleet.failFast,
                    allowDestructive: allowDestructive, mode: mode, control: control, progress: progress
                )
            }
        }
        let pins: PinPolicy = tenant.count == 1 ? .override : .respect
        try await runForEachTenant(tenant, json: migration.json, mode: mode) { name in
            try await migrator.rollback(tenant: name, to: target, allowDestructive: allowDestructive, mode: mode, pins: pins)
        }
    }
}
