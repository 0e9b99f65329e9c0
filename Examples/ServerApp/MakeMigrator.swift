import Foundation
import MigrationEngine   // PolicyRegistry
import RecipesPolicies   // your family's Swift migration policies
import TenantMigrator

/// The facade from a connection string, the family's directory and the family's policies.
func makeMigrator() throws -> TenantMigrator {
    var policies = PolicyRegistry()
    RecipesPolicies.register(in: &policies)          // or policies.register("Name") { MyPolicy() }

    let migrator = try TenantMigrator(
        connectionString: ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "",
        familyDirectory: URL(fileURLWithPath: "Migrations/Recipes"),   // or Bundle.module.url(forResource:withExtension:)
        policies: policies
    )
    return migrator
}
