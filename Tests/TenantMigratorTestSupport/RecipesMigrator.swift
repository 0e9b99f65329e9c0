import EntityModel
import Foundation
import Logging
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator

/// `Migrations/Recipes`, the example family the suites migrate.
public let recipesDirectory = PackagePaths.migrationFamily("Recipes")

/// The Recipes family, loaded from ``recipesDirectory``.
public func recipesFamily() throws -> ModelFamily {
    try ModelFamily.load(from: recipesDirectory)
}

/// The facade over the Recipes family with its Swift policies, as a server app builds it; it logs
/// errors only unless given a `logger`. Nil settings keep the library's defaults.
public func makeRecipesMigrator(
    _ conninfo: String, policies: PolicyRegistry = RecipesPolicies.registry, catalog: TenantCatalog = TenantCatalog(),
    lockTimeout: Duration? = nil, maxAttempts: Int? = nil, logger: Logger = .quiet("RecipesMigrator")
) throws -> TenantMigrator {
    var migrator = try TenantMigrator(
        connectionString: conninfo, familyDirectory: recipesDirectory, policies: policies, catalog: catalog, logger: logger
    )
    if let lockTimeout { migrator.lockTimeout = lockTimeout }
    if let maxAttempts { migrator.maxAttempts = maxAttempts }
    return migrator
}
