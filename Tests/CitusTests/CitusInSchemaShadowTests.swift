import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
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
            let tenant = fixture.names(1, "shadow")[0], twin = fixture.names(1, "twin")[0]
            _ = try await migrator.createTenants([tenant, twin], version: "v1", jobs: 1)
            try fixture.connection.loadRecipes(tenants: [tenant, twin], version: "v1", recipes: 40)
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
}
