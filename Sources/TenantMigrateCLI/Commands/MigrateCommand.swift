import ArgumentParser
import TenantMigrator

/// `tenant-migrate migrate`: move tenants forward.
struct MigrateCommand: RunnerCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate tenants forward to a version (the latest by default).",
        discussion: """
            Each tenant moves in one transaction holding its advisory lock: it ends at the target, or \
            exactly as it was, with the error recorded. A tenant already at the target costs one \
            query. Exits non-zero if any tenant failed.

            Pinned tenants (rolled back, or `tenant pin`) are left where they are by --all, --match, \
            --limit and by several --tenant, and reported as pinned (not a failure). A single \
            `--tenant NAME` moves its tenant anyway and clears the pin.
            """
    )

    @OptionGroup var options: GlobalOptions
    @Option(name: .long, help: ArgumentHelp("The tenant to migrate (repeatable).", valueName: "name")) var tenant: [String] = []
    @Option(help: ArgumentHelp("The target version. Default: the latest.", valueName: "v")) var to: String?
    @OptionGroup var migration: MigrationOptions
    @OptionGroup var fleet: FleetOptions

    func validate() throws {
        guard !tenant.isEmpty || fleet.isFleet else {
            throw ValidationError("name the tenants to migrate with --tenant (repeatable), or use --all, --match or --limit")
        }
        _ = try tenant.map(TenantName.init)
    }

    func perform() async throws {
        var migrator = try options.makeMigrator()
        migration.configure(&migrator)
        let target = to, allowDestructive = migration.allowDestructive, mode = migration.mode
        if fleet.isFleet {
            return try await runFleet(verb: "migrated", json: migration.json) { control, progress in
                try await migrator.migrateAll(
                    to: target, selection: fleet.selection(names: tenant), jobs: fleet.jobs, failFast: fleet.failFast,
                    allowDestructive: allowDestructive, mode: mode, control: control, progress: progress
                )
            }
        }
        // One tenant named alone is the operator's decision to move it; a list is a selection.
        let pins: PinPolicy = tenant.count == 1 ? .override : .respect
        try await runForEachTenant(tenant, json: migration.json, mode: mode) { name in
            try await migrator.migrate(tenant: name, to: target, allowDestructive: allowDestructive, mode: mode, pins: pins)
        }
    }
}
