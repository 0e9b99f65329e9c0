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
            models += try MappingModel.loadAll(in: recipesDirectory.appendingPathComponent("Mappings/Declarative"), for: family, policies: RecipesPolicies.registry)
            #expect(models.count == 6)
            for model in models {
                #expect(try model.checkExpressions(in: family, on: connection).isEmpty, "\(model.file)")
            }
            let bugTracker = try ModelFamily.load(from: PackagePaths.bugTrackerFamily)
            for model in try MappingModel.loadAll(for: bugTracker, policies: PolicyRegistry()) {
                #expect(try model.checkExpressions(in: bugTracker, on: connection).isEmpty, "\(model.file)")
            }
            try expectNothingLeft(on: connection)
        }
    }

    /// A distinct mapping's key and order are checked like every expression, each at its line.
    @Test func aDistinctKeyAndOrderAreChecked() async throws {
        try await TestPostgres.withDatabase { connection in
            let family = try ModelFamily.load(from: PackagePaths.bugTrackerFamily)
            let text = bugTrackerMapping(distinct: "\"lower(source.status, 1)\"", orderBy: "\"source.dueDate DESC NULLS\"")
            let model = try MappingModel.load(yaml: text, file: "BugTracker/Mappings/v2-to-v3.yaml", family: family, policies: PolicyRegistry())
            let problems = try model.checkExpressions(in: family, on: connection)
            #expect(problems.map(\.description) == [
                "BugTracker/Mappings/v2-to-v3.yaml:7: mapping IssueToStatus: the distinct key \"lower(source.status, 1)\" is not valid SQL: "
                    + "ERROR 42883: function lower(text, integer) does not exist",
                "BugTracker/Mappings/v2-to-v3.yaml:8: mapping IssueToStatus: the orderBy list \"source.dueDate DESC NULLS\" is not valid SQL: "
                    + "ERROR 42601: syntax error at or near \"NULLS\"",
            ], "\(problems)")
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
