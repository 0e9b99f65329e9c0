import MigrationEngine
import RecipesPolicies
import TenantMigrateCLI

// The runner registers the policies of the families it ships; an application's own runner does
// the same with its policies (see docs/CustomRunner.md).
var policies = PolicyRegistry()
RecipesPolicies.register(in: &policies)
await TenantMigrateCommand.main(policies: policies)
