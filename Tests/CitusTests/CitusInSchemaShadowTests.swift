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

/// The layout an online run on Citus builds on (docs/Citus.md): the shadow inside the tenant's
/// own schema, its names spelled by ``TableNaming/citusShadow`` (`_tm_shadow_recipe`, its key
/// `_tm_shadow_recipe_pkey`), so it is colocated with the live tables and clashes with none of
/// their names; a step's statements, unchanged but for that naming, run on it; the cutover swaps
/// by renames within the schema (``InSchemaSwap``).
extension CitusTests {
    /// Recipes v1 → v2 (the inferred step) on a shadow in the tenant's schema: built from the
    /// model under the shadow's naming (no 42P07 where the model's own names are taken), filled by
    /// the copy's batches, migrated by the step's own statements renamed, then swapped in by
    /// renames in one transaction. A failure in the swap leaves the tenant as it was; the swap
    /// again succeeds. The result equals an offline migration of a twin with the same rows: the
    /// same tables, columns, constraints, indexes and rows, all colocated on one worker.
    @Test func onlineOnCitusAShadowNamedInTheTenantsSchemaIsColocatedMigratedByTheStepAndSwappedByRenames() async throws {
        try await CitusFixture.with { fixture in
            let migrator = try fixture.migrator()
            let tenants = try await fixture.recipesTenants(at: "v1", ("shadow", 40), ("twin", 40))
            let (tenant, twin) = (tenants[0], tenants[1])
            let schema = "tenant_" + tenant, twinSchema = "tenant_" + twin, connection = fixture.connection
            let family = try recipesFamily()

            try migrateThroughAnInSchemaShadow(schema: schema, family: family, from: "v1", to: "v2", on: connection) { () throws in
                #expect(try fixture.colocationGroups(of: schema).count == 1)
                #expect(try connection.relations(of: schema, like: "\\_tm\\_shadow\\_%").count >= 6)
                #expect(try connection.columns(of: schema, "recipe").contains("instructions"), "the step touched the live table")
                #expect(try !connection.columns(of: schema, "_tm_shadow_recipe").contains("instructions"))
            }
            _ = try await migrator.migrate(tenant: twin, .migrate(to: "v2"))

            #expect(try connection.relations(of: schema, like: "\\_tm\\_%").isEmpty)
            let layout = try connection.layout(of: schema), twinLayout = try connection.layout(of: twinSchema)
            #expect(layout == twinLayout, "only here: \(Set(layout).subtracting(twinLayout).sorted()); only in the twin: \(Set(twinLayout).subtracting(layout).sorted())")
            for table in try #require(family.version(named: "v2")).relationalSchema().tables.map(\.name) {
                #expect(try connection.rows(of: schema, table) == connection.rows(of: twinSchema, table), "\(table)")
            }
            #expect(try fixture.colocationGroups(of: schema).count == 1)
            #expect(try fixture.preparedTransactions() == 0)
        }
    }

    /// Recipes v2 → v3 with the declarative mappings (the ingredient and unit extraction by
    /// `distinct:` keys, Meat and Fish into Entrée), offline and on a shadow in the tenant's schema.
    /// The step gives each new table's identity its next value, and Citus gives a distributed
    /// table's bigint identity a range of its own per node (from the node's group id × 2^48): the
    /// step used to `setval(…, max(id) + 1)` below it and failed (22003), offline too. It now never
    /// sets a sequence below its minimum, and both end alike.
    @Test func onlineOnCitusTheDeclarativeRecipesStepRunsOfflineAndOnTheShadowWithinTheIdentitysRange() async throws {
        try await CitusFixture.with { fixture in
            let family = try recipesFamily()
            let declarative = recipesDirectory.appendingPathComponent("Mappings/Declarative")
            let migrator = try TenantMigrator(connectionString: fixture.conninfo, familyDirectory: recipesDirectory, mappingsDirectory: declarative,
                                              policies: RecipesPolicies.registry, catalog: fixture.catalog, logger: quietLogger)
            let tenant = fixture.names(1, "shadow")[0], twin = fixture.names(1, "twin")[0]
            _ = try await migrator.createTenants([tenant, twin], version: "v2", jobs: 1)
            try fixture.connection.loadRecipes(tenants: [tenant, twin], version: "v2", recipes: 40)
            let schema = "tenant_" + tenant, twinSchema = "tenant_" + twin, connection = fixture.connection

            _ = try await migrator.migrate(tenant: twin, .migrate(to: "v3"))
            // As the twin's migrator loads them: the family's own, its v2 → v3 replaced by the declarative one.
            let mappings = try MappingModel.replacing(MappingModel.loadAll(for: family, policies: RecipesPolicies.registry),
                                                      with: MappingModel.loadAll(in: declarative, for: family, policies: RecipesPolicies.registry))
            try migrateThroughAnInSchemaShadow(schema: schema, family: family, mappings: mappings, from: "v2", to: "v3", on: connection)

            #expect(try connection.relations(of: schema, like: "\\_tm\\_shadow\\_%").isEmpty)
            let layout = try connection.layout(of: schema), twinLayout = try connection.layout(of: twinSchema)
            #expect(layout == twinLayout, "only here: \(Set(layout).subtracting(twinLayout).sorted()); only in the twin: \(Set(twinLayout).subtracting(layout).sorted())")
            for table in try #require(family.version(named: "v3")).relationalSchema().tables.map(\.name) {
                #expect(try connection.rows(of: schema, table) == connection.rows(of: twinSchema, table), "\(table)")
            }
            #expect(try connection.archiveEntries(of: schema) == connection.archiveEntries(of: twinSchema))
            // New rows of the app take ids from the node's range, past every id the step gave.
            for table in ["ingredient", "unit_of_measure"] {
                let next = try connection.scalar("SELECT nextval(pg_get_serial_sequence('\(twinSchema).\(table)', 'id'))", as: Int64.self)
                #expect(try next > connection.scalar("SELECT coalesce(max(id), 0) FROM \(twinSchema).\(table)", as: Int64.self), "\(table)")
            }
            #expect(try fixture.colocationGroups(of: schema).count == 1)
            #expect(try fixture.preparedTransactions() == 0)
        }
    }

    /// Recipes v2 → v3 with the family's own mapping and its two Swift policies, run by the step
    /// executor on a shadow in the tenant's schema under the shadow's naming: the policies' source
    /// queries, their writes and id allocation, the archive (`_tm_shadow__tm_archive`, swapped in
    /// with the tables) and the validation all reach the shadow alone (the live tables keep their
    /// rows until the swap), everything stays colocated on the tenant's worker, and the tenant ends
    /// as a twin migrated offline: tables, columns in order, constraints, indexes, rows and the
    /// archive's entries.
    @Test func onlineOnCitusThePoliciesRecipesStepRunsOnTheShadowByTheStepExecutorAndEndsAsOffline() async throws {
        try await CitusFixture.with { fixture in
            let family = try recipesFamily()
            let migrator = try fixture.migrator()
            let tenants = try await fixture.recipesTenants(at: "v2", ("shadow", 40), ("twin", 40))
            let (tenant, twin) = (tenants[0], tenants[1])
            let schema = "tenant_" + tenant, twinSchema = "tenant_" + twin, connection = fixture.connection
            let liveRows = try connection.rows(of: schema, "recipe_ingredient")
            // Both went up and back down offline once: each has an archive, which the shadow copies.
            for name in [tenant, twin] {
                _ = try await migrator.migrate(tenant: name, .migrate(to: "v3"))
                _ = try await migrator.migrate(tenant: name, .rollback(to: "v2"))
            }
            #expect(try TenantArchive.exists(inSchema: schema, on: connection))

            _ = try await migrator.migrate(tenant: twin, .migrate(to: "v3"))
            let mappings = try MappingModel.loadAll(for: family, policies: RecipesPolicies.registry)
            try migrateThroughAnInSchemaShadow(schema: schema, family: family, mappings: mappings, hooks: RecipesPolicies.registry,
                                               from: "v2", to: "v3", on: connection) { () throws in
                #expect(try connection.rows(of: schema, "recipe_ingredient") == liveRows, "the step touched the live table")
                #expect(try fixture.colocationGroups(of: schema).count == 1)
            }

            #expect(try connection.relations(of: schema, like: "\\_tm\\_shadow\\_%").isEmpty)
            let layout = try connection.layout(of: schema), twinLayout = try connection.layout(of: twinSchema)
            #expect(layout == twinLayout, "only here: \(Set(layout).subtracting(twinLayout).sorted()); only in the twin: \(Set(twinLayout).subtracting(layout).sorted())")
            for table in try #require(family.version(named: "v3")).relationalSchema().tables.map(\.name) {
                #expect(try connection.rows(of: schema, table) == connection.rows(of: twinSchema, table), "\(table)")
            }
            let archive = try connection.archiveEntries(of: schema)
            #expect(!archive.isEmpty)
            #expect(try archive == connection.archiveEntries(of: twinSchema))
            #expect(try fixture.colocationGroups(of: schema).count == 1)
            #expect(try fixture.preparedTransactions() == 0)
        }
    }
}
