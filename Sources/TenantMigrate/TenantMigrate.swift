import MigrationEngine
import RecipesPolicies
import TenantMigrateCLI

/// `tenant-migrate`: the runner of this package, built as an application builds its own (see
/// docs/CustomRunner.md). It registers the policies of the family it ships, and alone may start
/// the embedded server and has the Recipes demo.
@main
struct TenantMigrate: TenantMigrateRunner {
    static let runnerConfiguration = TenantMigrateConfiguration(
        commandName: "tenant-migrate",
        allowsEmbeddedServer: true,
        policies: RecipesPolicies.registry,
        additionalSubcommands: [DemoCommand.self]
    )
}
