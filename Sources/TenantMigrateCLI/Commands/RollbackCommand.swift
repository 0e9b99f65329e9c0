import ArgumentParser
import TenantMigrator

/// `tenant-migrate rollback`: move tenants back to an older version.
struct RollbackCommand<Runner: TenantMigrateRunner>: TenantMoveCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "rollback",
            abstract: "Migrate tenants back to an older version.",
            discussion: """
                A rollback is a downward migration along the family's versions, in one transaction per \
                tenant. What the way back destroys goes to the tenant's archive first, and what the way \
                up archived comes back; only what is lost for good (declared under `loses:`, or \
                anything with --no-archive) needs --allow-destructive. `plan` lists both.

                A rolled-back tenant is pinned at the version it reached, so that `migrate --all` and \
                the app's migrateIfNeeded leave it there. `migrate --tenant NAME` moves it forward again \
                (and clears the pin); `tenant unpin NAME` releases it. Pinned tenants are left alone by \
                --all, --match, --limit and several --tenant; a single --tenant rolls its tenant back anyway.
                """
        )
    }

    @OptionGroup var options: RunnerOptions<Runner>
    @Option(name: .long, help: ArgumentHelp("The tenant to roll back (repeatable).", valueName: "name")) var tenant: [String] = []
    @Option(help: ArgumentHelp("The version to roll back to.", valueName: "v")) var to: String
    @OptionGroup var migration: MigrationOptions
    @OptionGroup var fleet: FleetOptions
    @OptionGroup var output: OutputOptions<MoveReport<NamedMoveReport>>

    static var operation: MigrationRequest.Operation { .rollback }
    var target: String? { to }
}
