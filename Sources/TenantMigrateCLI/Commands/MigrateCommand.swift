import ArgumentParser
import TenantMigrator

/// `tenant-migrate migrate`: move tenants forward.
struct MigrateCommand<Runner: TenantMigrateRunner>: TenantMoveCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "migrate",
            abstract: "Migrate tenants forward to a version (the latest by default).",
            discussion: """
                Each tenant moves in one transaction holding its lock: it ends at the target, or \
                exactly as it was, with the error recorded. A tenant already at the target costs one \
                query. Exits non-zero if any tenant failed.

                Pinned tenants (rolled back, or `tenant pin`) are left where they are by --all, --match, \
                --limit and by several --tenant, and reported as pinned (not a failure). A single \
                `--tenant NAME` moves its tenant anyway and clears the pin.

                --dry-run and --rehearse change nothing: they report what would happen, or what would fail.
                """
        )
    }

    @OptionGroup var options: RunnerOptions<Runner>
    @Option(name: .long, help: ArgumentHelp("The tenant to migrate (repeatable).", valueName: "name")) var tenant: [String] = []
    @Option(help: ArgumentHelp("The target version. Default: the latest.", valueName: "v")) var to: String?
    @OptionGroup var migration: MigrationOptions
    @OptionGroup var fleet: FleetOptions
    @OptionGroup var output: OutputOptions<MoveReport<NamedMoveReport>>

    static var operation: MigrationRequest.Operation { .migrate }
    var target: String? { to }
}
