import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 30: data that starts at or above a pair whose way up makes a table anew (a `distinct:`
/// mapping, the Recipes policies), walks below it and up again. The way up makes the rows again
/// from the values, numbered by first row; they must come back with the ids they had, every
/// archived row no made row matches with its own id, every link to the same row, and the
/// identity's next value not lower. Before, the rows were renumbered, two rows that look alike
/// lost their links (NULL), and a row whose value is NULL was gone (found by the generated
/// round trips, seed 22, families 5, 72, 81, 112).
@Suite("Archive: rows made anew keep their ids across a re-run")
struct StableIdsTests {
    /// `DistinctRerun` at v2, the app's own Tag rows: one whose name is NULL, two named `b`, one no
    /// item uses, and the last one deleted (the identity is past the rows); items link to them in
    /// another order than their ids. v2 → v1 → v2.
    @Test func extractedRowsKeepTheirIdsAndLinks() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("DistinctRerun", conninfo, version: "v2", insert: "SELECT 1")
            _ = try connection.fixtureScript("""
                INSERT INTO \(schema).tag (name) VALUES ('a'), (NULL), ('b'), ('b'), ('c'), ('d'), ('e');
                DELETE FROM \(schema).tag WHERE id = 7;
                INSERT INTO \(schema).item (title, tag_id) VALUES ('i1', 6), ('i2', 4), ('i3', 2), ('i4', 3), ('i5', 1), ('i6', 4), ('i7', NULL), ('i8', 1);
                """)
            let tags = "SELECT id::text, name FROM \(schema).tag ORDER BY id"
            let items = "SELECT id::text, title, tag_id::text FROM \(schema).item ORDER BY id"
            let next = "SELECT pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence('\(schema).tag', 'id'))::text"
            let (tagsBefore, itemsBefore, nextBefore) = (try connection.rows(tags), try connection.rows(items), try connection.rows(next))
            #expect(nextBefore == [["7"]])
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            let labels = "SELECT id::text, title, tag FROM \(schema).item ORDER BY id"
            let labelsBelow = try connection.rows(labels)
            #expect(labelsBelow.map { $0[2] } == ["d", "b", nil, "b", "a", "b", nil, "a"])
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try connection.rows(tags) == tagsBefore)
            #expect(try connection.rows(items) == itemsBefore)
            #expect(try connection.rows(next) == nextBefore)
            #expect(try await verifyClean(migrator, "acme"))
            // Once more down: the same values.
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows(labels) == labelsBelow)
        }
    }

    /// Stock Recipes at v3, with its Swift policies and with the declarative mappings: the app's
    /// Ingredient and UnitOfMeasure rows, in another order than the recipes use them, one
    /// Ingredient no recipe uses. v3 → v2 → v3: every id as it was.
    @Test(arguments: [false, true])
    func recipesIngredientsKeepTheirIds(declarative: Bool) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await recipesTenant(conninfo, declarative: declarative, at: "v3")
            _ = try connection.fixtureScript("""
                INSERT INTO \(schema).unit_of_measure (name) VALUES ('pinch'), ('g'), ('kg');
                INSERT INTO \(schema).ingredient (name, unit_of_measure_id) VALUES ('Saffron', 1), ('Salt', 2), ('Sugar', 3), ('Pepper', 2);
                INSERT INTO \(schema).recipe (name, type) VALUES ('Soup', 'Entrée');
                INSERT INTO \(schema).recipe_ingredient (recipe_id, ingredient_id, quantity) VALUES (1, 4, 1), (1, 3, 2), (1, 2, 3), (1, 4, 4);
                """)
            let ingredients = "SELECT id::text, name, unit_of_measure_id::text FROM \(schema).ingredient ORDER BY id"
            let units = "SELECT id::text, name FROM \(schema).unit_of_measure ORDER BY id"
            let links = "SELECT id::text, ingredient_id::text, quantity::text FROM \(schema).recipe_ingredient ORDER BY id"
            let before = [try connection.rows(ingredients), try connection.rows(units), try connection.rows(links)]
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect([try connection.rows(ingredients), try connection.rows(units), try connection.rows(links)] == before)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
