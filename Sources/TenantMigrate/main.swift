import MigrationEngine
import RecipesPolicies
import TenantMigrateCLI

// The runner registers the policies of the families it ships; an application's own runner does
// the same with its policies (see docs/CustomRunner.md). `tenant-migrate` alone may start the
// embedded server, and has the Recipes demo.
var policies = PolicyRegistry()
RecipesPolicies.register(in: &policies)
await TenantMigrateCommand.main(TenantMigrateConfiguration(
    commandName: "tenant-migrate",
    allowsEmbeddedServer: true,
    policies: policies,
    additionalSubcommands: [DemoCommand.self]
))
