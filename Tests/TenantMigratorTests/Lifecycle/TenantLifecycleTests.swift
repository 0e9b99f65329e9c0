import EntityModel
import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

@Suite("Tenant catalog and lifecycle")
struct TenantLifecycleTests {
    @Test func catalogInstallIsIdempotentAndConcurrencySafe() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let catalog = TenantCatalog(schema: "tm_catalog")
            let connection = try Connection(conninfo)
            #expect(try catalog.installedVersion(on: connection) == nil)
            try catalog.install(on: connection)
            try catalog.install(on: connection)
            #expect(try catalog.installedVersion(on: connection) == 2)
            #expect(try connection.scalar("SELECT value FROM tm_catalog.catalog_info WHERE key = 'catalog_version'", as: String.self) == "2")

            // Four fresh installers race on another catalog schema.
            let other = TenantCatalog(schema: "tm_catalog_raced")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let database = try await AsyncConnection.connect(conninfo)
                        try await database.withConnection { try other.install(on: $0) }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try other.installedVersion(on: connection) == 2)
            #expect(try connection.scalar("SELECT count(*)::int FROM tm_catalog_raced.catalog_info", as: Int.self) == 1)
        }
    }

    @Test func createListAndDrop() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            let catalog = lifecycle.catalog

            let acme = try lifecycle.create(try tenant("acme"), on: connection)
            try lifecycle.create(try tenant("globex"), version: "v1", on: connection)
            #expect(acme.schema == "tenant_acme")
            #expect(acme.version == "v3")
            #expect(try catalog.tenants(on: connection).map(\.name.rawValue) == ["acme", "globex"])
            #expect(try catalog.requireTenant(try tenant("globex"), on: connection).version == "v1")
            #expect(try connection.schemaExists("tenant_acme"))

            #expect(throws: TenantMigratorError.self) { try lifecycle.create(try tenant("acme"), on: connection) }
            do {
                try lifecycle.create(try tenant("acme"), on: connection)
                Issue.record("creating an existing tenant must fail")
            } catch TenantMigratorError.tenantExists(let name) {
                #expect(name.rawValue == "acme")
            }

            #expect(throws: TenantMigratorError.self) { try lifecycle.drop(try tenant("acme"), confirmed: false, on: connection) }
            #expect(try connection.schemaExists("tenant_acme"))

            try lifecycle.drop(try tenant("acme"), confirmed: true, on: connection)
            #expect(try !connection.schemaExists("tenant_acme"))
            #expect(try catalog.tenants(on: connection).map(\.name.rawValue) == ["globex"])
            let history = try catalog.history(of: try tenant("acme"), on: connection)
            #expect(history.map(\.operation) == [.create, .drop])
            #expect(history.allSatisfy { $0.outcome == .succeeded })
        }
    }

    /// `DROP SCHEMA … CASCADE` also dropped what others made outside the tenant's schema on its
    /// tables: a view of a reporting schema, and a table inheriting from one with its own rows,
    /// silently. The drop is refused, naming them, and drops the tenant once they are gone.
    @Test func dropRefusesToTakeObjectsOutsideTheTenantAlong() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            try lifecycle.create(try tenant("acme"), version: "v1", on: connection)
            try connection.execute("CREATE SCHEMA reports")
            try connection.execute("CREATE VIEW reports.recipes AS SELECT name FROM tenant_acme.recipe")
            try connection.execute("CREATE TABLE reports.archived_recipe () INHERITS (tenant_acme.recipe)")
            try connection.execute("INSERT INTO reports.archived_recipe (id, name) VALUES (1, 'Old stew')")

            do {
                try lifecycle.drop(try tenant("acme"), confirmed: true, on: connection)
                Issue.record("the drop must be refused")
            } catch {
                for part in ["view reports.recipes", "table reports.archived_recipe", "2BP01", "acme"] {
                    #expect("\(error)".contains(part), "the refusal does not name \(part): \(error)")
                }
            }
            #expect(try connection.schemaExists("tenant_acme"))
            #expect(try connection.scalar("SELECT count(*)::int FROM ONLY reports.archived_recipe", as: Int.self) == 1)
            #expect(try lifecycle.catalog.tenants(on: connection).map(\.name.rawValue) == ["acme"])

            try connection.execute("DROP VIEW reports.recipes")
            try connection.execute("ALTER TABLE reports.archived_recipe NO INHERIT tenant_acme.recipe")
            try lifecycle.drop(try tenant("acme"), confirmed: true, on: connection)
            #expect(try !connection.schemaExists("tenant_acme"))
            #expect(try connection.scalar("SELECT count(*)::int FROM reports.archived_recipe", as: Int.self) == 1)
        }
    }

    @Test func hostileTenantNamesAreRejectedBeforeAnySQL() async throws {
        let hostile = [
            "acme\"; DROP SCHEMA public; --", "Acme", "a b", String(repeating: "a", count: 49), "", "1abc",
            "café", "acme-eu", "_acme", "acme\u{0}", "ａcme",
        ]
        for name in hostile {
            #expect(throws: TenantMigratorError.self, "\(name.debugDescription) must be rejected") { try TenantName(name) }
        }
        #expect(try TenantName(String(repeating: "a", count: 48)).rawValue.count == 48)

        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = TenantMigrator(connectionString: conninfo, family: try recipesFamily())
            _ = try await migrator.tenants()  // installs the catalog
            let connection = try Connection(conninfo)
            let before = try connection.userSchemas()
            for name in hostile {
                await #expect(throws: TenantMigratorError.self) { try await migrator.createTenant(name) }
            }
            #expect(try connection.userSchemas() == before)
            #expect(try connection.schemaExists("public"))
            #expect(try await migrator.tenants().isEmpty)
        }
    }

    @Test func verifyReportsDrift() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            let acme = try tenant("acme")
            try lifecycle.create(acme, version: "v1", on: connection)
            let clean = try lifecycle.verify(acme, on: connection)
            #expect(clean.isClean, "unexpected drift: \(clean.differences)")

            try connection.fixtureScript("ALTER TABLE tenant_acme.recipe ADD COLUMN rating integer")
            let added = try lifecycle.verify(acme, on: connection)
            #expect(!added.isClean)
            #expect(added.differences.map(\.description).joined(separator: "\n").contains("rating"))

            try connection.fixtureScript("ALTER TABLE tenant_acme.recipe DROP COLUMN rating; DROP INDEX tenant_acme.recipe_type_idx")
            let dropped = try lifecycle.verify(acme, on: connection)
            #expect(!dropped.isClean)
            let droppedText = dropped.differences.map(\.description).joined(separator: "\n")
            #expect(droppedText.contains("index") && droppedText.contains("type"), "\(droppedText)")

            try connection.fixtureScript("CREATE INDEX recipe_type_idx ON tenant_acme.recipe (type)")
            #expect(try lifecycle.verify(acme, on: connection).isClean)
        }
    }

    @Test func adoptFindsTheMatchingVersionAndExplainsTheClosestMismatch() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            let (catalog, family) = (lifecycle.catalog, lifecycle.family)
            for version in family.versions {
                let schema = "legacy_\(version.name)"
                try connection.createSchema(schema, at: version)
            }
            // Adopt newest first and oldest last, so the order of the search cannot help.
            for version in family.versions.reversed() {
                let name = try tenant("legacy_\(version.name)")
                let record = try lifecycle.adopt(name, schema: "legacy_\(version.name)", on: connection)
                #expect(record.version == version.name)
                #expect(record.versionHash == version.versionHash)
                #expect(try lifecycle.verify(name, on: connection).isClean)
            }

            // v2 minus a column matches nothing; the closest is v2, missing prep_minutes.
            let v2 = family.version(named: "v2")!
            try connection.fixtureScript("CREATE SCHEMA drifted")
            for statement in v2.relationalSchema().createStatements(inSchema: "drifted", quoting: connection) {
                try connection.fixtureScript(statement)
            }
            try connection.fixtureScript("ALTER TABLE drifted.recipe DROP COLUMN prep_minutes")
            do {
                try lifecycle.adopt(try tenant("drifted"), schema: "drifted", on: connection)
                Issue.record("adopting a drifted schema must fail")
            } catch let TenantMigratorError.adoptionFailed(schema, closest, differences) {
                #expect(schema == "drifted")
                #expect(closest == "v2")
                #expect(differences.count == 1)
                #expect(differences.joined().contains("prep_minutes"))
            }
            #expect(try catalog.tenant(try tenant("drifted"), on: connection) == nil)
            #expect(throws: TenantMigratorError.self) { try lifecycle.adopt(try tenant("ghost"), schema: "no_such_schema", on: connection) }
        }
    }

    /// Fifty creations in a row on one connection each register their tenant. (Their speed is the
    /// `create` benchmark's business, not a test's.)
    @Test func creatingFiftyTenantsInARowRegistersEach() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            let catalog = lifecycle.catalog
            for index in 0..<50 {
                try lifecycle.create(try tenant("t\(index)"), on: connection)
            }
            #expect(try catalog.tenants(on: connection).map(\.name.rawValue).sorted() == (0..<50).map { "t\($0)" }.sorted())
            let schemas = try connection.column("SELECT nspname::text FROM pg_namespace WHERE nspname LIKE 'tenant\\_t%'", as: String.self)
            #expect(schemas.count == 50)
        }
    }
}
