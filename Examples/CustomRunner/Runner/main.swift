import Foundation
import MigrationEngine
import RecipesPolicies
import TenantMigrateCLI

// recipes-runner: the Recipes app's own `tenant-migrate` (docs/CustomRunner.md), with the family's
// policies, a hook of the app's own, and a command of its own.
var policies = PolicyRegistry()
RecipesPolicies.register(in: &policies)             // policies.register("Name") { MyPolicy() } for each of yours
policies.registerHooks(family: "Recipes", from: "v2", to: "v3", StepHooks(didMigrate: { connection, schema in
    try connection.execute("ANALYZE \(connection.quoteIdentifier(schema)).recipe_ingredient")
}))
await TenantMigrateCommand.main(TenantMigrateConfiguration(
    policies: policies,
    additionalSubcommands: [Seed.self]
))
