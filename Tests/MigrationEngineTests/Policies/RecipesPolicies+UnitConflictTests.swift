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

@Suite("Recipes: conflicting units need consent")
struct RecipesPoliciesUnitConflictTests {
    struct Rollback: Error {}

    static let conflicts = 3_000

    @Test func conflictingUnitsAreListedRefusedAndWarnedOnce() async throws {
        let migrator = try TenantMigrator(connectionString: "", familyDirectory: recipesDirectory, policies: RecipesPolicies.registry)
        let plan = try migrator.plan(from: "v2", to: "v3")
        let loss = try #require(plan.dataDependentLosses.first { $0.column == "unit_of_measure" }, "\(plan.dataDependentLosses)")
        #expect(loss.kind == .custom && loss.detail.contains("policy RecipeIngredientToIngredientAndUnitOfMeasure"))
        #expect(loss.rows?.contains("pg_catalog.min(tm_m.id)") == true)

        try await TestPostgres.withDatabase { connection in
            let family = try recipesFamily()
            let harnessSchema = "units"
            try connection.fixtureScript("CREATE SCHEMA \(harnessSchema)")
            try connection.fixtureScript(family.version(named: "v2")!.relationalSchema().createStatements(inSchema: harnessSchema, quoting: connection).joined(separator: ";\n"))
            // Salt first comes in g; every other Salt comes in kg: those units cannot be kept.
            try connection.fixtureScript("""
                INSERT INTO units.recipe (id, name) VALUES (1, 'Soup');
                INSERT INTO units.recipe_ingredient (id, name, unit_of_measure, recipe_id) VALUES (1, 'Salt', 'g', 1), (2, 'Leek', NULL, 1);
                INSERT INTO units.recipe_ingredient (id, name, unit_of_measure, recipe_id)
                    SELECT 2 + n, 'Salt', 'kg', 1 FROM generate_series(1, \(Self.conflicts)) AS n;
                """)
            let before = try connection.tableChecksums(schema: harnessSchema, rowsOrderedBy: .text)
            do {
                _ = try connection.transaction { try plan.run(inSchema: harnessSchema, on: $0, archives: false) }
                Issue.record("losing units needs consent")
            } catch let error as UnconsentedLoss {
                #expect(error.rowCount == Self.conflicts && error.sampleIDs == [3, 4, 5, 6, 7], "\(error)")
                #expect(error.description.contains("allowDestructive: true") && !error.description.contains("--"), "\(error)")
            }
            #expect(try connection.tableChecksums(schema: harnessSchema, rowsOrderedBy: .text) == before)
            // With the archive (the default), the units are archived where the way back (v3 → v2,
            // each ingredient's unit) would not give them back: the conflicting ones, not Salt's
            // first g nor Leek's NULL. No consent needed.
            do {
                try connection.transaction { connection in
                _ = try plan.run(inSchema: harnessSchema, on: connection)
                #expect(try connection.scalar("SELECT count(*)::int FROM units._tm_archive WHERE column_name = 'unit_of_measure'", as: Int.self) == Self.conflicts)
                #expect(try connection.scalar("SELECT count(*)::int FROM units._tm_archive WHERE column_name = 'unit_of_measure' AND value <> 'kg'", as: Int.self) == 0)
                throw Rollback()
                }
            } catch is Rollback {}

            let (logger, lines) = RecordingLogHandler.logger()
            connection.logger = logger
            _ = try connection.transaction { try plan.run(inSchema: harnessSchema, on: $0, allowDestructive: true, archives: false) }
            let warnings = lines.messages(at: .warning).filter { $0.contains("unit") }
            #expect(warnings.count == 2, "\(warnings)")  // the policy's aggregated warning and the step's count of the loss
            #expect(warnings.contains { $0.contains("\(Self.conflicts) rows (ids 3, 4, 5, 6, 7, …)") && $0.contains("mapping RecipeIngredientToIngredientAndUnitOfMeasure") })
            #expect(try connection.rows("SELECT i.name, u.name FROM units.ingredient i LEFT JOIN units.unit_of_measure u ON u.id = i.unit_of_measure_id ORDER BY 1")
                    == [["Leek", nil], ["Salt", "g"]])
        }
    }
}
