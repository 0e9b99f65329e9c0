import EntityModel
import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// `Tests/TenantMigratorTests/Fixtures/<name>`.
func fixture(_ name: String) -> URL {
    PackagePaths.root.appendingPathComponent("Tests/TenantMigratorTests/Fixtures/\(name)")
}

/// A test family under Tests/TenantMigratorTests/Fixtures/.
func fixtureFamily(_ name: String) throws -> ModelFamily { try ModelFamily.load(from: fixture(name)) }

func tenant(_ name: String) throws -> TenantName { try TenantName(name) }

/// A connection to the database `conninfo` names, with the default catalog installed, and the
/// lifecycle of `family` (Recipes unless given) over that catalog.
func installedLifecycle(_ conninfo: String, family: ModelFamily? = nil) throws -> (connection: Connection, lifecycle: TenantLifecycle) {
    let connection = try Connection(conninfo)
    let catalog = TenantCatalog()
    try catalog.install(on: connection)
    return (connection, TenantLifecycle(catalog: catalog, family: try family ?? recipesFamily()))
}

/// Installs the default catalog and creates Recipes tenant `name` at `version` with `recipes`
/// recipes (``Connection/loadRecipes(tenants:version:recipes:)``); returns the connection.
func recipesTenant(_ name: String, version: String = "v1", recipes: Int, _ conninfo: String) throws -> Connection {
    let (connection, lifecycle) = try installedLifecycle(conninfo)
    try lifecycle.create(try tenant(name), version: version, on: connection)
    try connection.loadRecipes(tenants: [name], version: version, recipes: recipes)
    return connection
}

extension Connection {
    /// Creates `schema` with the tables of `version`, as an unregistered schema to adopt.
    func createSchema(_ schema: String, at version: ModelVersion) throws {
        try script("CREATE SCHEMA \(id: schema)")
        for statement in version.relationalSchema().creationStatements {
            try script(statement, schema: schema)
        }
    }
}
