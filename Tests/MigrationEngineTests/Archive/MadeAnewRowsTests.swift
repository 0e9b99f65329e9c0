import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Rows of a table a mapping fills that no source row makes again. Stock Recipes at v3: the app
/// keeps an Ingredient no recipe uses yet (Saffron, measured in pinches, a unit nothing else
/// uses). v3 → v2 removes Ingredient and UnitOfMeasure, archiving their rows; v2 → v3 makes both
/// anew from the recipe ingredients, Salt and Pepper again but not Saffron nor pinch. The way up
/// deleted the archived rows as "made anew": Saffron and pinch were gone, exit 0, "archived values
/// given back". They come back, Saffron linked to pinch; the rows the mapping made stand.
@Suite("Archive: rows of a table a mapping fills that no source row makes again")
struct MadeAnewRowsTests {
    @Test(arguments: [false, true])
    func rowsNoSourceRowMakesAgainComeBack(declarative: Bool) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await recipesTenant(conninfo, declarative: declarative, at: "v3")
            try connection.fixtureScript("""
                INSERT INTO \(schema).unit_of_measure (name) VALUES ('g'), ('pinch');
                INSERT INTO \(schema).ingredient (name, unit_of_measure_id) VALUES ('Salt', 1), ('Saffron', 2), ('Pepper', 1);
                INSERT INTO \(schema).recipe (name, type) VALUES ('Soup', 'Entrée');
                INSERT INTO \(schema).recipe_ingredient (recipe_id, ingredient_id, quantity) VALUES (1, 1, 2), (1, 3, 1);
                """)
            let ingredients = "SELECT i.name, u.name FROM \(schema).ingredient i LEFT JOIN \(schema).unit_of_measure u ON u.id = i.unit_of_measure_id ORDER BY i.name"
            let links = "SELECT i.name FROM \(schema).recipe_ingredient ri JOIN \(schema).ingredient i ON i.id = ri.ingredient_id ORDER BY ri.id"
            let before = try connection.rows(ingredients)
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect(try connection.rows(ingredients) == before)
            #expect(try connection.column("SELECT name FROM \(schema).unit_of_measure ORDER BY name", as: String.self) == ["g", "pinch"])
            #expect(try connection.column(links, as: String.self) == ["Salt", "Pepper"])
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
