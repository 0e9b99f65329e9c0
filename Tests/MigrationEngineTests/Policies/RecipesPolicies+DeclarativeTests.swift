import EntityModel
import Foundation
import LibPQ
import Logging
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// `Migrations/Recipes/Mappings/Declarative/v2-to-v3.yaml`: the ingredient and unit extraction and
/// Meat/Fish → Entrée without Swift, next to the family's own policies. Both give the same v3
/// data, the way down gives v2 back, and conflicting units behave as the policy's do.
@Suite("Recipes: the declarative extraction")
struct RecipesPoliciesDeclarativeTests {
    static let declarativeDirectory = recipesDirectory.appendingPathComponent("Mappings/Declarative")

    static func declarativeMigrator(_ conninfo: String) throws -> TenantMigrator {
        try TenantMigrator(connectionString: conninfo, familyDirectory: recipesDirectory, mappingsDirectory: declarativeDirectory,
                           policies: RecipesPolicies.registry, logger: .quiet("RecipesDeclarative"))
    }

    /// Generated v2 data with what makes de-duplication hard: names that differ only in case (two
    /// ingredients, as for the policy), NULL units, names whose units conflict (the first row's
    /// wins), NULL quantities and recipes, ids with gaps.
    static func insertData(into schema: String, seed: UInt64, on connection: Connection) throws -> RecipeData {
        let data = RecipeData(recipes: 200, ingredients: 1_500, seed: seed)
        try data.insert(into: schema, version: "v2", on: connection)
        let s = connection.quoteIdentifier(schema)
        try connection.execute(unsafeSQL: "UPDATE \(s).recipe_ingredient SET name = upper(name) WHERE id % 11 = 0")
        try connection.execute(unsafeSQL: "UPDATE \(s).recipe_ingredient SET unit_of_measure = NULL WHERE id % 13 = 0")
        try connection.execute(unsafeSQL: "UPDATE \(s).recipe_ingredient SET unit_of_measure = 'kg' WHERE id % 17 = 0")
        return data
    }

    @Test func itIsPickedByDirectoryAndUsesNoSwift() throws {
        let migrator = try Self.declarativeMigrator("")
        let plan = try migrator.plan(from: "v2", to: "v3")
        #expect(plan.steps.map(\.description).joined().contains("Recipes/Mappings/Declarative/v2-to-v3.yaml"), "\(plan.steps.map(\.description))")
        #expect(try migrator.plan(from: "v3", to: "v2").steps.map(\.description).joined().contains("Recipes/Mappings/v3-to-v2.yaml"))
        let sql = plan.describe(inSchema: "s", quoting: PostgreSQLQuoting()).flatMap(\.statements)
        #expect(!sql.contains { $0.contains("-- policy") }, "\(sql)")
        #expect(sql.contains("UPDATE \"s\".\"recipe\" AS source SET \"type\" = 'Entrée' WHERE (type IN ('Meat', 'Fish'))"))
        // The unit of a RecipeIngredient whose name's first row has another one is merged; the name never is.
        let merged = try #require(plan.dataDependentLosses.first { $0.column == "unit_of_measure" }, "\(plan.dataDependentLosses)")
        #expect(merged.detail.contains("mapping RecipeIngredientToIngredient keeps one value per distinct source.name"))
        #expect(!plan.dataDependentLosses.contains { $0.column == "name" } && plan.destructiveChanges.isEmpty, "\(plan.destructiveChanges)")
        // What the Entrée expression writes over is archived, like the policy's archive calls.
        #expect(plan.archivedChanges.contains { $0.table == "recipe" && $0.column == "type" && $0.rows == "type IN ('Meat', 'Fish')" }, "\(plan.archivedChanges)")
    }

    /// Same data in, same v3 out (every table, ids included), on several seeds; then v3 → v2 gives
    /// back exactly the v2 data, merged units and Meat and Fish included.
    /// A NULL unit merged into its name's first unit comes back too: the archive keeps NULL
    /// originals (the policy archives them by hand).
    @Test(arguments: [UInt64(11), 12])
    func itGivesWhatThePoliciesGiveAndComesBack(seed: UInt64) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            var schemas: [String] = []
            var before: [[String?]] = []
            for (tenant, migrator) in [("bypolicy", try makeRecipesMigrator(conninfo)), ("bymapping", try Self.declarativeMigrator(conninfo))] {
                let schema = try await migrator.createTenant(tenant, version: "v2").schema
                _ = try Self.insertData(into: schema, seed: seed, on: connection)
                before = try Self.v2Rows(schema, on: connection)
                #expect(try await migrator.migrate(tenant: tenant, to: "v3").outcome == .migrated)
                #expect(try await verifyClean(migrator, tenant))
                schemas.append(schema)
            }
            let byPolicy = try connection.tableChecksums(schema: schemas[0], rowsOrderedBy: .text).filter { !$0.key.hasPrefix("_tm_") }
            let byMapping = try connection.tableChecksums(schema: schemas[1], rowsOrderedBy: .text).filter { !$0.key.hasPrefix("_tm_") }
            #expect(byPolicy.keys.sorted() == ["ingredient", "recipe", "recipe_ingredient", "unit_of_measure"])
            #expect(byMapping == byPolicy)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schemas[1]).ingredient WHERE name <> upper(name) AND upper(name) IN (SELECT name FROM \(schemas[1]).ingredient)", as: Int.self) > 0,
                    "names that differ in case stay two ingredients")

            let mapping = try Self.declarativeMigrator(conninfo)
            #expect(try await mapping.rollback(tenant: "bymapping", to: "v2").outcome == .migrated)
            let after = try Self.v2Rows(schemas[1], on: connection)
            #expect(after.count == before.count)
            let nullUnitsMerged = Self.nullUnitsMerged(before)
            #expect(!nullUnitsMerged.isEmpty)
            #expect(after == before)
            #expect(try await verifyClean(mapping, "bymapping"))
        }
    }

    /// `check --round-trip` with the declarative mapping picked: every trip gives every value back,
    /// nothing excused.
    @Test func theRoundTripCheckPasses() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let output = try await TenantMigrateExecutable.run(
                ["check", "--round-trip", "--rows", "40", "--json", "--mappings", Self.declarativeDirectory.path], database: conninfo, migrations: recipesDirectory)
            let report = try JSONDecoder().decode(RoundTripReport.self, from: Data(output.stdout.utf8))
            #expect(report.trips.contains { $0.path == ["v2", "v3", "v2"] } && report.trips.allSatisfy { $0.error == nil && $0.excused == 0 }, "\(report)")
            #expect(output.status == 0 && report.passed, "\(output.stdout)\n\(output.stderr)")
        }
    }

    /// As `RecipesPoliciesUnitConflictTests` for the policy: conflicting units are listed, refused
    /// without the archive or consent (naming the rows), archived with it, counted with consent;
    /// the Ingredient keeps the first row's unit.
    @Test func conflictingUnitsBehaveAsWithThePolicy() async throws {
        let conflicts = 3_000
        let plan = try Self.declarativeMigrator("").plan(from: "v2", to: "v3")
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript("CREATE SCHEMA units")
            try connection.fixtureScript(try recipesFamily().version(named: "v2")!.relationalSchema().createStatements(inSchema: "units", quoting: connection).joined(separator: ";\n"))
            try connection.fixtureScript("""
                INSERT INTO units.recipe (id, name) VALUES (1, 'Soup');
                INSERT INTO units.recipe_ingredient (id, name, unit_of_measure, recipe_id) VALUES (1, 'Salt', 'g', 1), (2, 'Leek', NULL, 1);
                INSERT INTO units.recipe_ingredient (id, name, unit_of_measure, recipe_id)
                    SELECT 2 + n, 'Salt', 'kg', 1 FROM generate_series(1, \(conflicts)) AS n;
                """)
            let before = try connection.tableChecksums(schema: "units", rowsOrderedBy: .text)
            do {
                _ = try connection.transaction { try plan.run(inSchema: "units", on: $0, archives: false) }
                Issue.record("losing units needs consent")
            } catch let error as UnconsentedLoss {
                #expect(error.rowCount == conflicts && error.sampleIDs == [3, 4, 5, 6, 7], "\(error)")
            }
            #expect(try connection.tableChecksums(schema: "units", rowsOrderedBy: .text) == before)
            try connection.rolledBack { connection in
                _ = try plan.run(inSchema: "units", on: connection)
                // Every conflicting unit is archived (the archive may keep more of the column).
                #expect(try connection.scalar("SELECT count(*)::int FROM units._tm_archive WHERE column_name = 'unit_of_measure' AND value = 'kg' "
                    + "AND row_id BETWEEN 3 AND \(conflicts + 2)", as: Int.self) == conflicts)
            }

            let (logger, lines) = RecordingLogHandler.logger()
            connection.logger = logger
            _ = try connection.transaction { try plan.run(inSchema: "units", on: $0, allowDestructive: true, archives: false) }
            let warnings = lines.messages(at: .warning).filter { $0.contains("unit") }
            #expect(warnings.count == 1 && warnings[0].contains("\(conflicts) rows of recipe_ingredient (ids 3, 4, 5, 6, 7, …)"), "\(warnings)")
            #expect(try connection.rows("SELECT i.name, u.name FROM units.ingredient i LEFT JOIN units.unit_of_measure u ON u.id = i.unit_of_measure_id ORDER BY 1")
                    == [["Leek", nil], ["Salt", "g"]])
            // Like the policy, every unit gets its UnitOfMeasure, the merged one too.
            #expect(try connection.column("SELECT name FROM units.unit_of_measure ORDER BY id", as: String.self) == ["g", "kg"])
        }
    }

    /// The ids of the recipe ingredients (rows of ``v2Rows(_:on:)``) whose unit is NULL while the
    /// first row of their name has one: NULLs the Ingredient's unit merges away.
    static func nullUnitsMerged(_ rows: [[String?]]) -> Set<String> {
        var firstUnit: [String: String?] = [:]
        var ids: Set<String> = []
        for row in rows where row[0] == "i" {
            let (id, name, unit) = (row[1]!, row[2]!, row[4])
            guard let first = firstUnit[name] else { firstUnit[name] = unit; continue }
            if unit == nil, first != nil { ids.insert(id) }
        }
        return ids
    }

    /// Every v2 row of the recipes and recipe ingredients, columns by name, each kind by id.
    static func v2Rows(_ schema: String, on connection: Connection) throws -> [[String?]] {
        try connection.rows("SELECT 'r', r.id::text, name, type, servings::text, prep_minutes::text, method FROM \(schema).recipe r ORDER BY r.id")
            + connection.rows("SELECT 'i', i.id::text, name, quantity::text, unit_of_measure, recipe_id::text, NULL FROM \(schema).recipe_ingredient i ORDER BY i.id")
    }
}
