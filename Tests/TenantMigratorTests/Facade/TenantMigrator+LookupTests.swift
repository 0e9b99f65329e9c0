import EntityModel
import LibPQ
import PostgresTestSupport
import TenantMigrator
import Testing

@Suite("Looking up one tenant")
struct TenantMigratorLookupTests {
    @Test func aTenantIsFoundByNameWithItsSchema() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = TenantMigrator(connectionString: conninfo, family: try fixtureFamily("Catalogue"))
            // No catalog yet: nobody, and nothing is created.
            #expect(try await migrator.tenant(named: "acme") == nil)
            let connection = try Connection(conninfo)
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_namespace WHERE nspname = 'tenant_migrator'", as: Int.self) == 0)

            try await migrator.createTenant("acme", version: "v2")
            let record = try await migrator.tenant(named: "acme")
            #expect(record?.version == "v2")
            #expect(try await migrator.schemaName(for: "acme") == "tenant_acme")
            #expect(try await migrator.tenant(named: "globex") == nil)
            await #expect(throws: TenantMigratorError.self) { try await migrator.tenant(named: "Not A Name") }
        }
    }

    /// The app's own client gets the tenant's schema and a search_path that works even for a
    /// schema name that needs quoting.
    @Test func anAppSessionReachesTheTenantThroughItsSearchPath() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let family = try fixtureFamily("Catalogue")
            let migrator = TenantMigrator(connectionString: conninfo, family: family)
            #expect(try await migrator.tenantSession(for: "east") == nil)
            let connection = try Connection(conninfo)
            try TenantCatalog().install(on: connection)
            let schema = #"Shop "East""#
            try connection.createSchema(schema, at: family.versions[0])
            try connection.execute(unsafeSQL: "INSERT INTO \(connection.quoteIdentifier(schema)).product (code) VALUES ('E1'), ('E2')")
            try migrator.lifecycle.adopt(try tenant("east"), schema: schema, on: connection)

            let session = try #require(try await migrator.tenantSession(for: "east"))
            #expect(session.schema == schema)
            #expect(session.searchPath == #""Shop ""East""""#)
            let app = try Connection(conninfo)
            try app.execute("SELECT pg_catalog.set_config('search_path', $1, false)", [session.searchPath])
            #expect(try app.scalar("SELECT count(*)::int FROM product", as: Int.self) == 2)
            let other = try Connection(conninfo)
            try other.execute(unsafeSQL: session.setSearchPathSQL)
            #expect(try other.scalar("SELECT string_agg(code, ',' ORDER BY code) FROM product", as: String.self) == "E1,E2")
        }
    }
}
