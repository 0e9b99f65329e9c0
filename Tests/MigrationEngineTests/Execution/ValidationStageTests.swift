import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// The Recipes ingredient policy, except that it refuses an ingredient named "poison".
struct PoisonRefusingIngredientPolicy: MigrationPolicy {
    struct Poisoned: Error, CustomStringConvertible { let description = "refusing to migrate poison" }
    let real = RecipeIngredientToIngredientAndUnitOfMeasure()
    var transforms: [String] { real.transforms }
    var loses: [PolicyLoss] { real.loses }

    func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        if try source.string("name") == "poison" { throw Poisoned() }
        try real.createDestinationInstances(for: source, in: context)
    }
}

@Suite("Failures roll back only their tenant")
struct ValidationStageTests {
    /// A policy that throws on one row fails that tenant's migration only: it stays at v2,
    /// byte for byte, marked failed, with an error naming the tenant, the mapping and the row.
    @Test func aPolicyErrorRollsBackOnlyItsTenant() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            var policies = PolicyRegistry()
            RecipesPolicies.register(in: &policies)
            policies.register("RecipeIngredientToIngredientAndUnitOfMeasure") { PoisonRefusingIngredientPolicy() }
            let migrator = try makeRecipesMigrator(conninfo, policies: policies)
            let connection = try Connection(conninfo)
            var schemas: [String: String] = [:]
            var poisonID: Int64 = 0
            for (index, tenant) in ["alpha", "bravo", "charlie"].enumerated() {
                let schema = try await migrator.createTenant(tenant, version: "v2").schema
                let data = RecipeData(recipes: 100, ingredients: 700, seed: UInt64(index), poison: tenant == "bravo")
                try data.insert(into: schema, version: "v2", on: connection)
                if tenant == "bravo" { poisonID = data.ingredients.first { $0.name == "poison" }!.id }
                schemas[tenant] = schema
            }
            let before = try connection.tableChecksums(schema: schemas["bravo"]!, rowsOrderedBy: .text)

            var failures: [String: TenantMigrationError] = [:]
            for tenant in ["alpha", "bravo", "charlie"] {
                do {
                    let result = try await migrator.migrate(tenant: tenant, to: "v3")
                    #expect(result.outcome == .migrated)
                } catch let error as TenantMigrationError {
                    failures[tenant] = error
                }
            }
            #expect(failures.keys.sorted() == ["bravo"])
            let error = try #require(failures["bravo"])
            #expect(error.description.contains("tenant bravo"))
            #expect(error.description.contains("mapping RecipeIngredientToIngredientAndUnitOfMeasure"))
            #expect(error.description.contains("source row id \(poisonID)"))
            #expect(error.description.contains("refusing to migrate poison"))
            let policyError = try #require(error.underlying as? PolicyError)
            #expect(policyError.sourceRowID == poisonID && policyError.stage == "createDestinationInstances")

            #expect(try connection.tableChecksums(schema: schemas["bravo"]!, rowsOrderedBy: .text) == before)
            let records = Dictionary(uniqueKeysWithValues: try await migrator.tenants().map { ($0.name.rawValue, $0) })
            #expect(records["bravo"]?.version == "v2")
            #expect(records["bravo"]?.state == .failed)
            #expect(records["bravo"]?.lastError?.contains("source row id \(poisonID)") == true)
            #expect(records["alpha"]?.version == "v3" && records["alpha"]?.state == .ready)
            #expect(records["charlie"]?.version == "v3" && records["charlie"]?.state == .ready)
            #expect(try await verifyClean(migrator, "bravo"))
            #expect(try await verifyClean(migrator, "alpha"))
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schemas["charlie"]!).ingredient", as: Int.self) > 0)
        }
    }

    /// Migrates a tenant at v2 holding `ingredients` with `mappingFile`, expecting a ConstraintViolation.
    func expectViolation(_ mappingFile: String, ingredients: [String]) async throws -> (ConstraintViolation, [Int64])? {
        try await TestPostgres.withDatabaseURL { conninfo in
            let family = try recipesFamily()
            let mapping = try loadMapping(mappingFile, family: family, policies: PolicyRegistry())
            let migrator = TenantMigrator(connectionString: conninfo, family: family, mappings: [mapping])
            let schema = try await migrator.createTenant("shop", version: "v2").schema
            let connection = try Connection(conninfo)
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).recipe (id, name) VALUES (1, 'Soup')")
            var ids: [Int64] = []
            for (index, name) in ingredients.enumerated() {
                ids.append(try connection.scalar("INSERT INTO \(schema).recipe_ingredient (id, name, recipe_id) VALUES ($1, $2, 1) RETURNING id",
                                                 [Int64(index * 10 + 5), name], as: Int64.self))
            }
            let before = try connection.tableChecksums(schema: schema, rowsOrderedBy: .text)
            defer { }
            do {
                _ = try await migrator.migrate(tenant: "shop", to: "v3", allowDestructive: true)  // (unit_of_measure is not read)
                Issue.record("\(mappingFile) must fail validation")
                return nil
            } catch let error as TenantMigrationError {
                #expect(try connection.tableChecksums(schema: schema, rowsOrderedBy: .text) == before)
                #expect(try await migrator.tenants().first?.version == "v2")
                #expect(try await migrator.tenants().first?.state == .failed)
                #expect(try await verifyClean(migrator, "shop"))
                #expect(error.description.contains("validation failed"))
                let violation = try #require(error.underlying as? ConstraintViolation, "\(error)")
                return (violation, ids)
            }
        }
    }

    /// One Ingredient per RecipeIngredient breaks Ingredient.name's UNIQUE when two share a name:
    /// reported against Ingredient, naming a duplicated row and the constraint, and rolled back.
    @Test func aDuplicateForAUniqueAttributeIsAConstraintViolation() async throws {
        let (violation, ids) = try #require(try await expectViolation("RecipesMappings/v2-to-v3-one-ingredient-per-row.yaml",
                                                                      ingredients: ["Salt", "Leek", "Salt", "Water"]))
        #expect(violation.entity == "Ingredient")
        #expect(violation.constraint == "ingredient_name_key")
        #expect(violation.rowID == ids[2])  // the Ingredient made from the second Salt (id = source id + 0)
        #expect(violation.underlying.sqlState == .uniqueViolation)
        #expect(violation.description.contains("Ingredient row id \(ids[2]) violates ingredient_name_key"))
    }

    /// The same mapping succeeds on distinct names.
    @Test func oneIngredientPerRowWorksOnDistinctNames() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let family = try recipesFamily()
            let mapping = try loadMapping("RecipesMappings/v2-to-v3-one-ingredient-per-row.yaml", family: family, policies: PolicyRegistry())
            let migrator = TenantMigrator(connectionString: conninfo, family: family, mappings: [mapping])
            let schema = try await migrator.createTenant("shop", version: "v2").schema
            let connection = try Connection(conninfo)
            try connection.fixtureScript("""
                INSERT INTO \(schema).recipe (id, name) VALUES (1, 'Soup');
                INSERT INTO \(schema).recipe_ingredient (id, name, recipe_id) VALUES (4, 'Leek', 1), (9, 'Salt', 1), (12, 'Water', 1);
                """)
            // The mapping never reads unit_of_measure: the account says so, and the plan needs consent.
            let plan = try migrator.plan(from: "v2", to: "v3")
            #expect(plan.destructiveChanges.map(\.column) == ["unit_of_measure"], "\(plan.destructiveChanges)")
            _ = try await migrator.migrate(tenant: "shop", to: "v3", allowDestructive: true)
            #expect(try connection.rows("SELECT ri.id::text, i.id::text, i.name FROM \(schema).recipe_ingredient ri JOIN \(schema).ingredient i ON i.id = ri.ingredient_id ORDER BY ri.id")
                    == [["4", "4", "Leek"], ["9", "9", "Salt"], ["12", "12", "Water"]])
            #expect(try await verifyClean(migrator, "shop"))
        }
    }

    /// A filtered mapping makes no Ingredient for water, so the relationship mapping leaves that
    /// RecipeIngredient's required ingredient empty: NOT NULL fails, naming the row.
    @Test func aMissingRequiredValueIsAConstraintViolation() async throws {
        let (violation, ids) = try #require(try await expectViolation("RecipesMappings/v2-to-v3-skips-water.yaml",
                                                                      ingredients: ["Salt", "Leek", "Water", "Pepper"]))
        #expect(violation.entity == "RecipeIngredient")
        #expect(violation.constraint == "NOT NULL on ingredient_id")
        #expect(violation.rowID == ids[2])
        #expect(violation.underlying.sqlState == .notNullViolation)
    }
}
