import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Recipes v2 → v3 drops each RecipeIngredient's name and unit once its policy made Ingredients
/// and UnitOfMeasures of them; v3 → v2 (`name: source.ingredient.name`, `unitOfMeasure:
/// source.ingredient.unitOfMeasure.name`) derives them back. The way up archives only the rows
/// where that derivation would not give a value back, and the way back gives back every value.
@Suite("Archive: proof by the way back")
struct WayBackProofTests {
    static let schema = "proved"

    /// Salt first comes in g, then in kg; Leek has no unit; Pepper first has none, then a pinch.
    static let rows = """
        INSERT INTO proved.recipe (id, name) VALUES (1, 'Soup');
        INSERT INTO proved.recipe_ingredient (id, name, unit_of_measure, recipe_id) VALUES
            (1, 'Salt', 'g', 1), (2, 'Salt', 'kg', 1), (3, 'Leek', NULL, 1), (4, 'Pepper', NULL, 1), (5, 'Pepper', 'pinch', 1), (6, 'Salt', 'g', 1);
        """

    func plans(_ directory: URL = recipesDirectory) throws -> (up: MigrationPlan, down: MigrationPlan) {
        let migrator = try TenantMigrator(connectionString: "", familyDirectory: directory, policies: RecipesPolicies.registry)
        return (try migrator.plan(from: "v2", to: "v3"), try migrator.plan(from: "v3", to: "v2"))
    }

    func tenantAtV2(_ connection: Connection) throws {
        let family = try recipesFamily()
        try connection.fixtureScript("CREATE SCHEMA \(Self.schema)")
        try connection.fixtureScript(family.version(named: "v2")!.relationalSchema().createStatements(inSchema: Self.schema, quoting: connection).joined(separator: ";\n"))
        try connection.fixtureScript(Self.rows)
    }

    func ingredients(_ connection: Connection) throws -> [[String?]] {
        try connection.rows("SELECT id::text, name, unit_of_measure FROM proved.recipe_ingredient ORDER BY id")
    }

    @Test func onlyTheRowsTheWayBackCannotRebuildAreArchived() async throws {
        let (up, down) = try plans()
        let step = try #require(up.steps.first)
        #expect(step.statements.map(\.description).contains {
            $0.contains("archive: recipe_ingredient.name, recipe_ingredient.unit_of_measure, in the rows where the way back (Recipes/Mappings/v3-to-v2.yaml) would not")
        }, "\(step.statements)")
        try await TestPostgres.withDatabase { connection in
            try tenantAtV2(connection)
            let before = try ingredients(connection)
            _ = try connection.transaction { try up.run(inSchema: Self.schema, on: $0) }
            // Each name comes back from its Ingredient, and each unit that is its Ingredient's:
            // only Salt's kg and Pepper's pinch are kept, each with what the way back derives.
            let entries = try connection.rows(
                "SELECT column_name, row_id::text, value, left_value FROM proved._tm_archive WHERE table_name = 'recipe_ingredient' ORDER BY column_name, row_id")
            #expect(entries.filter { $0[0] != "#way back" } == [["unit_of_measure", "2", "kg", "[\"g\"]"], ["unit_of_measure", "5", "pinch", "[null]"]])
            #expect(entries.filter { $0[0] == "#way back" }.map { $0[3] } == ["Recipes/Mappings/v3-to-v2.yaml"])
            // `archive list` counts the two values, not the marker.
            #expect(try TenantArchive.usage(inSchema: Self.schema, on: connection).filter { $0.stepFrom == "v2" }.map(\.entries) == [2])
            _ = try connection.transaction { try down.run(inSchema: Self.schema, on: $0) }
            #expect(try ingredients(connection) == before)
            // Every entry of the way up was used (the way down archives what it drops, under v3 → v2).
            let left = try connection.rows("SELECT table_name, column_name, row_id::text FROM proved._tm_archive WHERE step_from = 'v2'")
            #expect(left.isEmpty, "\(left)")
        }
    }

    /// What the app changed since the way up wins over the archive, whether a row's value was
    /// archived or given back by the way back: Salt's unit became mg, so both Salts come back in mg,
    /// but Pepper's pinch, whose Ingredient is unchanged, comes back.
    @Test func theAppsChangesSinceTheWayUpWin() async throws {
        let (up, down) = try plans()
        try await TestPostgres.withDatabase { connection in
            try tenantAtV2(connection)
            _ = try connection.transaction { try up.run(inSchema: Self.schema, on: $0) }
            try connection.fixtureScript("""
                UPDATE proved.unit_of_measure SET name = 'mg' WHERE name = 'g';
                UPDATE proved.ingredient SET name = 'Sea salt' WHERE name = 'Salt';
                """)
            _ = try connection.transaction { try down.run(inSchema: Self.schema, on: $0) }
            #expect(try ingredients(connection) == [
                ["1", "Sea salt", "mg"], ["2", "Sea salt", "mg"], ["3", "Leek", nil], ["4", "Pepper", nil], ["5", "Pepper", "pinch"], ["6", "Sea salt", "mg"],
            ])
        }
    }

    /// A way back edited since the way up would give back other values in the rows the way up did
    /// not archive: the way down gives them back by the way back the archive recorded (issue 30,
    /// class 6; `SelfContainedWayBackTests`), and every value comes back as it was.
    @Test func anEditedWayBackStillGivesBackWhatTheWayUpTook() async throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("way-back-\(UUID().uuidString)")
        let directory = parent.appendingPathComponent("Recipes")
        defer { try? FileManager.default.removeItem(at: parent) }
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: recipesDirectory, to: directory)
        let wayBack = directory.appendingPathComponent("Mappings/v3-to-v2.yaml")
        let up = try plans().up
        try await TestPostgres.withDatabase { connection in
            try tenantAtV2(connection)
            let before = try ingredients(connection)
            _ = try connection.transaction { try up.run(inSchema: Self.schema, on: $0) }

            let original = try String(contentsOf: wayBack, encoding: .utf8)
            try original.replacingOccurrences(of: "name: source.ingredient.name", with: "name: upper(source.ingredient.name)")
                .write(to: wayBack, atomically: true, encoding: .utf8)
            let edited = try plans(directory).down
            _ = try connection.transaction { try edited.run(inSchema: Self.schema, on: $0) }
            #expect(try ingredients(connection) == before)
        }
    }
}
