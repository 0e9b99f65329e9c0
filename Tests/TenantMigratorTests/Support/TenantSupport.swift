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

extension Connection {
    /// Creates `schema` with the tables of `version`, as an unregistered schema to adopt.
    func createSchema(_ schema: String, at version: ModelVersion) throws {
        try script("CREATE SCHEMA \(id: schema)")
        for statement in version.relationalSchema().creationStatements {
            try script(statement, schema: schema)
        }
    }
}
