import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Recipes v1 → v3 → v2 → v1 on generated data, through the facade, with the family's own mapping
/// models (seed 003): Ingredient and UnitOfMeasure extracted and de-duplicated by the Swift policy,
/// Meat and Fish turned into Entrée, and everything but the recipe types restored on the way back.
@Suite("Recipes round trip")
struct RecipesPoliciesTests {
    @Test func v1ToV3ToV2ToV1OnGeneratedData() async throws {
        try await TestPostgres.withRecipesMigrator { conninfo, migrator in
            let record = try await migrator.createTenant("acme", version: "v1")
            let schema = record.schema
            let connection = try Connection(conninfo)
            let data = RecipeData(recipes: 300, ingredients: 2_000)
            try data.insert(into: schema, version: "v1", on: connection)
            #expect(data.meatAndFish > 50 && data.entrees > 0 && data.distinctNames > 50 && data.distinctUnits == 8)

            let recipesSQL = "SELECT r.id::text, name, type, servings::text, instructions FROM \(schema).recipe r ORDER BY r.id"
            let ingredientsSQL = "SELECT ri.id::text, name, quantity::text, unit_of_measure, recipe_id::text FROM \(schema).recipe_ingredient ri ORDER BY ri.id"
            let recipesV1 = try connection.rows(recipesSQL)
            let ingredientsV1 = try connection.rows(ingredientsSQL)
            #expect(recipesV1.count == 300 && ingredientsV1.count == 2_000)

            // v1 → v3: an inferred step, then the mapped one.
            let up = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect(up.outcome == .migrated && up.fromVersion == "v1" && up.toVersion == "v3")

            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).ingredient", as: Int.self) == data.distinctNames)
            #expect(try connection.scalar("SELECT count(DISTINCT name)::int FROM \(schema).ingredient", as: Int.self) == data.distinctNames)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).unit_of_measure", as: Int.self) == data.distinctUnits)
            // Every RecipeIngredient links to the Ingredient of its old name, whose unit is its old unit;
            // ids, quantities and recipes are unchanged.
            let linked = try connection.rows("""
                SELECT ri.id::text, i.name, ri.quantity::text, u.name, ri.recipe_id::text
                FROM \(schema).recipe_ingredient ri
                JOIN \(schema).ingredient i ON i.id = ri.ingredient_id
                LEFT JOIN \(schema).unit_of_measure u ON u.id = i.unit_of_measure_id
                ORDER BY ri.id
                """)
            #expect(linked == ingredientsV1)
            // Meat and Fish are gone; they became Entrée; nothing else about recipes changed.
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE type IN ('Meat', 'Fish')", as: Int.self) == 0)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE type = 'Entrée'", as: Int.self) == data.meatAndFish + data.entrees)
            let recipesV3 = try connection.rows("SELECT r.id::text, name, type, servings::text, method FROM \(schema).recipe r ORDER BY r.id")
            #expect(recipesV3 == recipesV1.map(Self.entreeRule))
            #expect(try await verifyClean(migrator, "acme"))
            #expect(try await migrator.tenants().first?.version == "v3")

            // v3 → v2 gives back which Entrée was Meat and which Fish, from the tenant's archive:
            // nothing is lost, so no consent is needed.
            let downPlan = try migrator.plan(from: "v3", to: "v2")
            #expect(downPlan.lostChanges(archiving: true).isEmpty, "\(downPlan.lostChanges(archiving: true))")
            let down = try await migrator.rollback(tenant: "acme", to: "v2")
            #expect(down.outcome == .migrated && down.toVersion == "v2")
            #expect(try connection.rows(ingredientsSQL) == ingredientsV1)
            #expect(try await verifyClean(migrator, "acme"))

            // v2 → v1 (drops prepMinutes, narrows servings): everything but the types as at first.
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows(ingredientsSQL) == ingredientsV1)
            #expect(try connection.rows(recipesSQL) == recipesV1)
            #expect(try await verifyClean(migrator, "acme"))
            #expect(try await migrator.tenants().first?.version == "v1")
        }
    }

    /// A recipe row (id, name, type, …) as v2 → v3 leaves it: Meat and Fish are Entrée.
    static func entreeRule(_ row: [String?]) -> [String?] {
        var row = row
        if row[2] == "Meat" || row[2] == "Fish" { row[2] = "Entrée" }
        return row
    }

    /// Meat/Fish → Entrée written as a declarative mapping (`type: "'Entrée'"`) gives exactly what
    /// the Swift policy gives.
    @Test func declarativeEntreeMatchesThePolicy() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let family = try recipesFamily()
            let declarative = try loadMapping("RecipesMappings/v2-to-v3-declarative.yaml", family: family, policies: RecipesPolicies.registry)
            #expect(declarative.entityMapping(named: "MeatAndFishToEntree")?.policy == nil)
            #expect(declarative.entityMapping(named: "MeatAndFishToEntree")?.attributes.first?.expression == "'Entrée'")
            let withPolicies = try makeRecipesMigrator(conninfo)
            let withSQL = TenantMigrator(connectionString: conninfo, family: family, mappings: [declarative])

            // The declarative form compiles to one plain UPDATE (no key path leaves the row); the policy form does not.
            let sql = try withSQL.plan(from: "v2", to: "v3").describe(inSchema: "s", quoting: try Connection(conninfo)).flatMap(\.statements)
            #expect(sql.contains("UPDATE \"s\".\"recipe\" AS source SET \"type\" = 'Entrée' WHERE (type IN ('Meat', 'Fish'))"), "\(sql)")
            let policySQL = try withPolicies.plan(from: "v2", to: "v3").describe(inSchema: "s", quoting: try Connection(conninfo)).flatMap(\.statements)
            #expect(policySQL.contains("-- policy RecipeTypeToEntree: createDestinationInstances for each source row (streamed), rows written with COPY"))
            #expect(!policySQL.contains { $0.contains("= 'Entrée'") })

            let connection = try Connection(conninfo)
            let data = RecipeData(recipes: 300, ingredients: 2_000, seed: 7)
            var schemas: [String] = []
            for (tenant, migrator) in [("bypolicy", withPolicies), ("bysql", withSQL)] {
                let record = try await migrator.createTenant(tenant, version: "v2")
                try data.insert(into: record.schema, version: "v2", on: connection)
                let result = try await migrator.migrate(tenant: tenant, to: "v3")
                #expect(result.outcome == .migrated)
                #expect(try await verifyClean(migrator, tenant))
                schemas.append(record.schema)
            }
            let byPolicy = try connection.tableChecksums(schema: schemas[0], rowsOrderedBy: .text).filter { !$0.key.hasPrefix("_tm_") }
            let bySQL = try connection.tableChecksums(schema: schemas[1], rowsOrderedBy: .text).filter { !$0.key.hasPrefix("_tm_") }
            #expect(byPolicy.keys.sorted() == ["ingredient", "recipe", "recipe_ingredient", "unit_of_measure"])
            #expect(byPolicy == bySQL)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schemas[1]).recipe WHERE type = 'Entrée'", as: Int.self) == data.meatAndFish + data.entrees)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schemas[1]).recipe WHERE type IN ('Meat', 'Fish')", as: Int.self) == 0)
        }
    }
}
