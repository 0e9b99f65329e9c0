import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator

/// A tenant `acme` made at v1 of a family written for one test, for tests that then change the
/// database's or the role's defaults (`ALTER DATABASE … SET`): `body` gets the family's directory,
/// the database's connection string, a connection opened before any such change (so it keeps the
/// server's defaults), the tenant's schema and the database's name, both quoted.
func withTenantForDatabaseDefaults(
    _ family: String, versions: [(String, String)],
    _ body: (_ directory: URL, _ conninfo: String, _ connection: Connection, _ schema: String, _ database: String) async throws -> Void
) async throws {
    let directory = try OnlineFamilyDirectory(family, versions: versions)
    defer { directory.remove() }
    try await TestPostgres.withDatabaseURL { conninfo in
        let setup = try TenantMigrator(connectionString: conninfo, familyDirectory: directory.directory, logger: .quiet(family))
        _ = try await setup.createTenant("acme", version: "v1")
        let connection = try Connection(conninfo)
        let schema = connection.quoteIdentifier(try connection.scalar("SELECT schema_name::text FROM tenant_migrator.tenants WHERE name = 'acme'", as: String.self))
        let database = connection.quoteIdentifier(try connection.scalar("SELECT current_database()::text", as: String.self))
        try await body(directory.directory, conninfo, connection, schema, database)
    }
}
