import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

@Suite struct MigrationPlannerRecipesTests {
    static let family: ModelFamily = {
        let root = PackagePaths.root
        return try! ModelFamily.load(from: root.appendingPathComponent("Migrations/Recipes"))
    }()

    @Test func recipesV1ToV2IsInferredAndKeepsData() async throws {
        let planner = MigrationPlanner(family: Self.family)
        try await TestPostgres.withDatabase { connection in
            let v1 = Self.family.version(named: "v1")!
            try connection.fixtureScript("CREATE SCHEMA acme")
            try connection.fixtureScript(v1.relationalSchema().createStatements(inSchema: "acme", quoting: connection).joined(separator: ";\n"))
            try connection.execute("INSERT INTO acme.recipe (name, type, servings, instructions) VALUES ('Stew', 'Meat', 4, 'Simmer')")
            try connection.execute("INSERT INTO acme.recipe_ingredient (name, quantity, unit_of_measure, recipe_id) VALUES ('Beef', 500, 'g', 1)")

            let up = try planner.plan(from: "v1", to: "v2")
            #expect(up.direction == .up)
            let statements = up.describe(inSchema: "acme", quoting: connection).flatMap(\.statements)
            #expect(statements.contains { $0.contains("RENAME COLUMN \"instructions\" TO \"method\"") })
            _ = try connection.transaction { try up.run(inSchema: "acme", on: $0) }
            let live = try SchemaSnapshot.read(schema: "acme", on: connection)
            #expect(live.differences(from: try SchemaSnapshot.expected(for: Self.family.version(named: "v2")!, on: connection)).isEmpty)
            let row = try connection.execute("SELECT method, servings FROM acme.recipe").first!
            #expect(try row.decode(String.self, column: "method") == "Simmer")
            #expect(try row.decode(Int32.self, column: "servings") == 4)

            let down = try planner.plan(from: "v2", to: "v1")
            _ = try connection.transaction { try down.run(inSchema: "acme", on: $0) }
            let back = try SchemaSnapshot.read(schema: "acme", on: connection)
            #expect(back.differences(from: try SchemaSnapshot.expected(for: v1, on: connection)).isEmpty)
            #expect(try connection.execute("SELECT instructions FROM acme.recipe").first!.decode(String.self, at: 0) == "Simmer")
        }
    }

    @Test func recipesV2ToV3NeedsAMapping() throws {
        #expect(throws: PlanningError.self) { try MigrationPlanner(family: Self.family).plan(from: "v2", to: "v3") }
        let checks = MigrationPlanner(family: Self.family).checkFamily()
        #expect(checks.count == 4)
        #expect(checks.filter(\.isPossible).count >= 2)
    }
}
