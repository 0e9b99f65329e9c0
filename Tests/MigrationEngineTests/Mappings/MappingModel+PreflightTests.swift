import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Mapping filters and expressions are checked against PostgreSQL before any tenant runs them
/// (issue 11): a mistake is reported with its file and line, PostgreSQL's message and SQLSTATE,
/// and the check leaves nothing behind.
@Suite("Mapping expressions: the SQL check")
struct MappingModelPreflightTests {
    @Test func invalidSQLIsReportedWithItsFileAndLine() async throws {
        try await TestPostgres.withDatabase { connection in
            let family = try recipesFamily()
            let path = "InvalidSQL/recipes-v2-to-v3.yaml"
            let text = try String(contentsOf: fixture(path), encoding: .utf8)
            let model = try MappingModel.load(yaml: text, file: "Recipes/Mappings/v2-to-v3.yaml", family: family, policies: RecipesPolicies.registry)

            let problems = try model.checkExpressions(in: family, on: connection)

            let expected: [(marker: String, mapping: String, subject: String, sqlState: String)] = [
                ("syntax error", "RecipeToRecipe", "the filter", "42601"),
                ("no such function", "MeatAndFishToEntree", "the value expression of type", "42883"),
                ("not a boolean", "RecipeIngredientToIngredientAndUnitOfMeasure", "the filter", "42804"),
            ]
            #expect(problems.count == expected.count, "\(problems)")
            for (marker, mapping, subject, sqlState) in expected {
                let line = line(of: marker, in: text)
                let problem = problems.first { $0.mapping == mapping }
                #expect(problem?.location.file == "Recipes/Mappings/v2-to-v3.yaml")
                #expect(problem?.location.line == line, "\(marker): \(String(describing: problem))")
                #expect(problem?.subject == subject)
                #expect(problem?.sqlState == sqlState, "\(String(describing: problem))")
                #expect(problem?.description.hasPrefix("Recipes/Mappings/v2-to-v3.yaml:\(line): mapping \(mapping): \(subject) \"") == true)
                #expect(problem?.description.contains("is not valid SQL: ERROR \(sqlState): ") == true)
            }
            try expectNothingLeft(on: connection)
        }
    }

    @Test func theRecipesMappingsAreValidSQL() async throws {
        try await TestPostgres.withDatabase { connection in
            let family = try recipesFamily()
            var models = try MappingModel.loadAll(for: family, policies: RecipesPolicies.registry)
            for name in ["v2-to-v3-declarative", "v2-to-v3-one-ingredient-per-row", "v2-to-v3-skips-water"] {
                models.append(try loadMapping("RecipesMappings/\(name).yaml", family: family, policies: RecipesPolicies.registry))
            }
            #expect(models.count == 5)
            for model in models {
                #expect(try model.checkExpressions(in: family, on: connection).isEmpty, "\(model.file)")
            }
            try expectNothingLeft(on: connection)
        }
    }

    /// Inside a caller's transaction the check uses a savepoint, and the transaction goes on.
    @Test func insideATransactionTheCallersWorkSurvives() async throws {
        try await TestPostgres.withDatabase { connection in
            let family = try recipesFamily()
            let text = try String(contentsOf: fixture("InvalidSQL/recipes-v2-to-v3.yaml"), encoding: .utf8)
            let model = try MappingModel.load(yaml: text, file: "v2-to-v3.yaml", family: family, policies: RecipesPolicies.registry)
            try connection.transaction { connection in
                try connection.fixtureScript("CREATE TABLE kept (id int)")
                #expect(try model.checkExpressions(in: family, on: connection).count == 3)
                try connection.fixtureScript("INSERT INTO kept VALUES (1)")
            }
            #expect(try connection.scalar("SELECT count(*)::int FROM kept", as: Int.self) == 1)
            try expectNothingLeft(on: connection)
        }
    }

    /// No scratch schema and no prepared statement remain.
    private func expectNothingLeft(on connection: Connection) throws {
        #expect(try connection.scalar("SELECT count(*)::int FROM pg_namespace WHERE nspname LIKE '\\_tm\\_preflight%'", as: Int.self) == 0)
        #expect(try connection.scalar("SELECT count(*)::int FROM pg_prepared_statements", as: Int.self) == 0)
    }
}
