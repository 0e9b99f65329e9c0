import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// The in-schema layout (a shadow under ``TableNaming/citusShadow`` next to the live tables, the
/// cutover by ``InSchemaSwap``'s renames) on plain PostgreSQL, where every CI run has it; the
/// Citus suite runs the same on a cluster (`CitusInSchemaShadowTests`).
@Suite("Online: a shadow inside the tenant's schema")
struct InSchemaSwapTests {
    /// Runs `body` on a new database with Recipes tenants `inschema` and `twin` at `version`, made
    /// by `makeMigrator`'s migrator (given to `body`) and filled with the same 60 recipes.
    static func withTwins(at version: String, _ makeMigrator: (String) throws -> TenantMigrator = { try makeRecipesMigrator($0) },
                          _ body: (TenantMigrator, Connection) async throws -> Void) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try makeMigrator(conninfo)
            _ = try await migrator.createTenants(["inschema", "twin"], version: version, jobs: 1)
            let connection = try Connection(conninfo)
            try connection.loadRecipes(tenants: ["inschema", "twin"], version: version, recipes: 60)
            try await body(migrator, connection)
        }
    }

    /// `tenant_inschema` has the layout of `tenant_twin` (tables, columns in order, constraints,
    /// indexes, sequences) and, in each of `tables`, its rows.
    static func expectAsTwin(_ connection: Connection, tables: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let layout = try connection.layout(of: "tenant_inschema"), twin = try connection.layout(of: "tenant_twin")
        #expect(layout == twin, "only here: \(Set(layout).subtracting(twin).sorted()); only in the twin: \(Set(twin).subtracting(layout).sorted())",
                sourceLocation: sourceLocation)
        for table in tables {
            #expect(try connection.rows(of: "tenant_inschema", table) == connection.rows(of: "tenant_twin", table), "\(table)", sourceLocation: sourceLocation)
        }
    }

    /// Recipes v1 → v2 through a shadow in the tenant's own schema ends as an offline migration of
    /// a twin with the same rows: the same tables, columns in order, constraints, indexes,
    /// sequences and rows, and nothing of the shadow or the retired tables left.
    @Test func aShadowInTheTenantsSchemaSwappedInByRenamesEndsAsAnOfflineMigration() async throws {
        try await Self.withTwins(at: "v1") { migrator, connection in
            let family = try recipesFamily()
            try migrateThroughAnInSchemaShadow(schema: "tenant_inschema", family: family, from: "v1", to: "v2", on: connection) { () throws in
                #expect(try connection.columns(of: "tenant_inschema", "recipe").contains("instructions"), "the step touched the live table")
                #expect(try connection.columns(of: "tenant_inschema", "_tm_shadow_recipe").contains("method"))
            }
            _ = try await migrator.migrate(tenant: "twin", to: "v2")
            #expect(try connection.relations(of: "tenant_inschema", like: "\\_tm\\_%").isEmpty)
            try Self.expectAsTwin(connection, tables: ["recipe", "recipe_ingredient"])
        }
    }

    /// Recipes v2 → v3 with the declarative mappings (the ingredient and unit extraction by
    /// `distinct:` keys, Meat and Fish into Entrée): the step executor under the shadow's naming ends
    /// as the offline run of a twin, archive included.
    @Test func theDeclarativeRecipesStepOnAShadowInTheTenantsSchemaEndsAsOffline() async throws {
        try await Self.withTwins(at: "v2", RecipesPoliciesDeclarativeTests.declarativeMigrator) { migrator, connection in
            let family = try recipesFamily()
            // As the twin's migrator loads them: the family's own, its v2 → v3 replaced by the declarative one.
            let mappings = try MappingModel.replacing(MappingModel.loadAll(for: family, policies: RecipesPolicies.registry),
                                                      with: MappingModel.loadAll(in: RecipesPoliciesDeclarativeTests.declarativeDirectory, for: family, policies: RecipesPolicies.registry))
            try migrateThroughAnInSchemaShadow(schema: "tenant_inschema", family: family, mappings: mappings, from: "v2", to: "v3", on: connection)
            _ = try await migrator.migrate(tenant: "twin", to: "v3")
            try Self.expectAsTwin(connection, tables: try #require(family.version(named: "v3")).relationalSchema().tables.map(\.name))
            let archive = try connection.archiveEntries(of: "tenant_inschema"), twinArchive = try connection.archiveEntries(of: "tenant_twin")
            #expect(archive == twinArchive, "only here: \(Set(archive).subtracting(twinArchive).sorted().prefix(3)); only in the twin: \(Set(twinArchive).subtracting(archive).sorted().prefix(3))")
        }
    }

    /// Recipes v2 → v3 with the family's own mapping and its two Swift policies (Meat and Fish into
    /// Entrée, the Ingredient and UnitOfMeasure extraction), run by the step executor under the
    /// shadow's naming: the policies' reads and writes, their id allocation, the archive (made as
    /// `_tm_shadow__tm_archive` and swapped in) and the validation reach the shadow only, and the
    /// tenant ends as the offline run of a twin, archive entries included.
    @Test func theRecipesPoliciesStepOnAShadowInTheTenantsSchemaEndsAsOfflineArchiveIncluded() async throws {
        try await Self.withTwins(at: "v2") { migrator, connection in
            let family = try recipesFamily()
            let mappings = try MappingModel.loadAll(for: family, policies: RecipesPolicies.registry)
            // Both went up and back down offline once: each has an archive, which the shadow copies.
            for tenant in ["inschema", "twin"] {
                _ = try await migrator.migrate(tenant: tenant, to: "v3")
                _ = try await migrator.rollback(tenant: tenant, to: "v2")
            }
            #expect(try TenantArchive.exists(inSchema: "tenant_inschema", on: connection))
            let liveRows = try connection.rows(of: "tenant_inschema", "recipe_ingredient")
            let statistics = try migrateThroughAnInSchemaShadow(schema: "tenant_inschema", family: family, mappings: mappings, hooks: RecipesPolicies.registry,
                                                                from: "v2", to: "v3", on: connection) { () throws in
                #expect(try connection.rows(of: "tenant_inschema", "recipe_ingredient") == liveRows, "the step touched the live table")
                #expect(try connection.columns(of: "tenant_inschema", "_tm_shadow_recipe_ingredient").contains("ingredient_id"))
                // Autovacuum is off on the shadow's tables only, the archive the step made included.
                let withOptions = try connection.tablesWithOptions(of: "tenant_inschema")
                #expect(withOptions.contains("_tm_shadow__tm_archive") && withOptions.contains("_tm_shadow_ingredient"), "\(withOptions)")
                #expect(withOptions.allSatisfy { $0.hasPrefix("_tm_shadow_") }, "\(withOptions)")
            }
            #expect(statistics.rowsAffected > 0)
            _ = try await migrator.migrate(tenant: "twin", to: "v3")
            #expect(try connection.relations(of: "tenant_inschema", like: "\\_tm\\_shadow%").isEmpty)
            try Self.expectAsTwin(connection, tables: try #require(family.version(named: "v3")).relationalSchema().tables.map(\.name))
            #expect(try connection.tablesWithOptions(of: "tenant_inschema").isEmpty)
            let archive = try connection.archiveEntries(of: "tenant_inschema")
            #expect(!archive.isEmpty)
            #expect(try archive == connection.archiveEntries(of: "tenant_twin"))
        }
    }

    /// PostgreSQL would cut a retired or restored name longer than 63 bytes: the swap names them
    /// and renames nothing.
    @Test func aNameTooLongForItsRetiredFormIsRefusedBeforeAnythingIsRenamed() async throws {
        try await TestPostgres.withDatabase { connection in
            let long = String(repeating: "t", count: 60)
            try connection.execute("CREATE SCHEMA \(id: "swap_long")")
            try connection.execute("CREATE TABLE \(table: long) (id bigint PRIMARY KEY)", schema: "swap_long")
            try connection.execute("CREATE TABLE \(table: "_tm_shadow_" + "t") (id bigint PRIMARY KEY)", schema: "swap_long")
            let before = try connection.relations(of: "swap_long", like: "%")
            let refused = #expect(throws: InSchemaSwap.SwapRefused.self) {
                try InSchemaSwap(schema: "swap_long", live: [long]).run(on: connection)
            }
            #expect(refused?.names.contains(long) == true, "\(String(describing: refused))")
            #expect(refused?.description.contains("migrate offline") == true)
            #expect(try connection.relations(of: "swap_long", like: "%") == before)
            #expect(before.contains("_tm_shadow_t_pkey") && before.contains(long))
        }
    }
}
