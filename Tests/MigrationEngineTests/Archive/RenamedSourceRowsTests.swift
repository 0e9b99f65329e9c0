import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 30: a row a way up makes anew from its source rows (a `distinct:` mapping, the Recipes
/// policies), whose source rows the app renamed while the tenant was below it. The way up again
/// makes the row from what the app wrote; that row is the one the archive kept (the same source
/// rows named it), so it takes its id and reads the app's value, the archived value is kept
/// superseded (counted), and the next way down gives the app's values back exactly. Before, the
/// archived row came back under its old value (`Salt` beside the app's `Sea salt`).
@Suite("Archive: rows made anew from source rows the app renamed below")
struct RenamedSourceRowsTests {
    /// Stock Recipes, with its Swift policies and with the declarative mappings: v2 → v3 → v2, the
    /// app renames every Salt to Sea salt and the first of two Pepper rows to White pepper, v2 → v3.
    @Test(arguments: [false, true])
    func recipesIngredientReadsTheAppsRename(declarative: Bool) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await recipesTenantAtV2(conninfo, declarative: declarative, ingredients: [
                (1, "Salt", "g", 1), (2, "Pepper", "g", 2), (3, "Sugar", "kg", 3), (4, "Salt", "g", 4), (5, "Pepper", "g", 5),
            ])
            let ingredients = "SELECT i.id::text, i.name, u.name FROM \(schema).ingredient i LEFT JOIN \(schema).unit_of_measure u ON u.id = i.unit_of_measure_id ORDER BY i.id"
            let links = "SELECT id::text, ingredient_id::text FROM \(schema).recipe_ingredient ORDER BY id"
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect(try connection.rows(ingredients) == [["1", "Salt", "g"], ["2", "Pepper", "g"], ["3", "Sugar", "kg"]])
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            try connection.execute(unsafeSQL: "UPDATE \(schema).recipe_ingredient SET name = 'Sea salt' WHERE name = 'Salt'")
            try connection.execute(unsafeSQL: "UPDATE \(schema).recipe_ingredient SET name = 'White pepper' WHERE id = 2")
            let below = "SELECT id::text, name, unit_of_measure, quantity::text FROM \(schema).recipe_ingredient ORDER BY id"
            let appsRows = try connection.rows(below)
            let again = try await migrator.migrate(tenant: "acme", to: "v3")
            // Sea salt is the row Salt was (every row that named it now names Sea salt); Pepper
            // keeps its id by its value; White pepper is a new row (made with id 2, Pepper's:
            // one past every id).
            let (madeAgain, linked) = (try connection.rows(ingredients), try connection.rows(links))
            #expect(madeAgain == [["1", "Sea salt", "g"], ["2", "Pepper", "g"], ["3", "Sugar", "kg"], ["5", "White pepper", "g"]], "\(madeAgain)")
            #expect(linked == [["1", "1"], ["2", "5"], ["3", "3"], ["4", "1"], ["5", "2"]], "\(linked)")
            #expect(try connection.rows("SELECT name FROM \(schema).ingredient WHERE name = 'Salt'").isEmpty)
            // The archived Salt (and what named it) is kept, superseded, and counted.
            #expect(again.statistics.supersededEntries > 0, "\(again.statistics)")
            #expect(try connection.rows("SELECT count(*)::text FROM \(schema)._tm_archive WHERE superseded AND table_name = 'ingredient' AND column_name = ''") == [["1"]])
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            #expect(try connection.rows(below) == appsRows)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// BugTracker's `distinct:` status: v2 → v3 → v2, the app renames every Waiting to Blocked and
    /// one of two Open issues to Reopened, v2 → v3 → v2.
    @Test func issueStatusReadsTheAppsRename() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await bugTrackerTenant(conninfo, statuses: ["Closed", "Open", "Waiting", "closed ", "Open", "Waiting"])
            let statuses = "SELECT id::text, name FROM \(schema).status ORDER BY id"
            let links = "SELECT id::text, status_id::text FROM \(schema).issue ORDER BY id"
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect(try connection.rows(statuses) == [["1", "Closed"], ["2", "Open"], ["3", "Waiting"]])
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            try connection.execute(unsafeSQL: "UPDATE \(schema).issue SET status = 'Blocked' WHERE status = 'Waiting'")
            try connection.execute(unsafeSQL: "UPDATE \(schema).issue SET status = 'Reopened' WHERE id = 5")
            let below = "SELECT id::text, status FROM \(schema).issue ORDER BY id"
            let appsRows = try connection.rows(below)
            // A rehearsal of the way up (there and back, rolled back) reports what it would supersede.
            let rehearsed = try await migrator.migrate(tenant: "acme", MigrationRequest(.move, to: "v3", allowDestructive: true, mode: .rehearse))
            #expect(rehearsed.outcome == .migrated && rehearsed.statistics.supersededEntries > 0, "\(rehearsed)")
            #expect(try connection.rows(below) == appsRows)
            let again = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect(try connection.rows(statuses) == [["1", "Closed"], ["2", "Open"], ["3", "Blocked"], ["4", "Reopened"]])
            #expect(try connection.rows(links) == [["1", "1"], ["2", "2"], ["3", "3"], ["4", "1"], ["5", "4"], ["6", "3"]])
            #expect(again.statistics.supersededEntries > 0, "\(again.statistics)")
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            #expect(try connection.rows(below) == appsRows)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
    /// Two Tag rows that look alike (`b`, ids 2 and 3, the app's own at v2), each named by one
    /// item; below, the app renames the first item's tag to `c`. v2 → v1 → v2: `c` is Tag 2
    /// renamed, the other item keeps Tag 3, and no `b` is left that nothing names.
    @Test func aRenamedRowThatLookedLikeAnotherTakesItsOwnId() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("DistinctRerun", conninfo, version: "v2", insert: "SELECT 1")
            _ = try connection.fixtureScript("""
                INSERT INTO \(schema).tag (name) VALUES ('a'), ('b'), ('b');
                INSERT INTO \(schema).item (title, tag_id) VALUES ('i1', 2), ('i2', 3);
                """)
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            try connection.execute(unsafeSQL: "UPDATE \(schema).item SET tag = 'c' WHERE title = 'i1'")
            let below = "SELECT id::text, title, tag FROM \(schema).item ORDER BY id"
            let appsRows = try connection.rows(below)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            let tags = try connection.rows("SELECT id::text, name FROM \(schema).tag ORDER BY id")
            let items = try connection.rows("SELECT title, tag_id::text FROM \(schema).item ORDER BY id")
            #expect(tags == [["1", "a"], ["2", "c"], ["3", "b"]], "\(tags)")
            #expect(items == [["i1", "2"], ["i2", "3"]], "\(items)")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows(below) == appsRows)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
