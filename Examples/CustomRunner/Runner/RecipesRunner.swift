import Foundation
import MigrationEngine
import RecipesPolicies
import TenantMigrateCLI

// recipes-runner: the Recipes app's own `tenant-migrate` (docs/CustomRunner.md), with the family's
// policies, a hook of the app's own, and a command of its own. The type is the root command: its
// name gives the runner's (`RecipesRunner` → `recipes-runner`).
@main
struct RecipesRunner: TenantMigrateRunner {
    static let runnerConfiguration: TenantMigrateConfiguration = {
        var policies = PolicyRegistry()
        RecipesPolicies.register(in: &policies)             // policies.register("Name") { MyPolicy() } for each of yours
        policies.registerHooks(family: "Recipes", from: "v2", to: "v3", StepHooks(didMigrate: { connection, schema in
            try connection.execute("ANALYZE \(table: "recipe_ingredient")", schema: schema)
        }))
        return TenantMigrateConfiguration(
            version: "2.3.1",
            policies: policies,
            additionalSubcommands: [Seed.self]
        )
    }()
}
