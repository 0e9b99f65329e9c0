import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 30, class 1: a link the archive gives back points at the row it pointed at, even when a
/// later step made its target rows anew with other ids (a mapping or policy that makes one row
/// per distinct value numbers them by first row, so a row the app deleted in between shifts them).
@Suite("Archive: links given back to rows made anew")
struct ArchivedLinkTests {
    /// Stock Recipes, with its Swift policies and with the declarative mappings: v2 → v3 → v2, the
    /// app deletes the Salt row, v2 → v3 again. Pepper stays Pepper, Sugar stays Sugar, and the next
    /// way down gives back exactly the v2 rows.
    @Test(arguments: [false, true])
    func recipeIngredientsKeepTheirIngredientAcrossARerun(declarative: Bool) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await recipesTenantAtV2(conninfo, declarative: declarative, ingredients: [(1, "Salt", "g", 1), (2, "Pepper", "g", 2), (3, "Sugar", "kg", 3)])
            let links = "SELECT ri.id::text, i.name, u.name FROM \(schema).recipe_ingredient ri JOIN \(schema).ingredient i ON i.id = ri.ingredient_id "
                + "LEFT JOIN \(schema).unit_of_measure u ON u.id = i.unit_of_measure_id ORDER BY ri.id"
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect(try connection.rows(links) == [["1", "Salt", "g"], ["2", "Pepper", "g"], ["3", "Sugar", "kg"]])
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            try connection.execute(unsafeSQL: "DELETE FROM \(schema).recipe_ingredient WHERE name = 'Salt'")
            let again = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect(try connection.rows(links) == [["2", "Pepper", "g"], ["3", "Sugar", "kg"]])
            // The run counts them (reported by migrate, --rehearse and check --round-trip).
            #expect(again.statistics.linksRestoredByTarget == 2, "\(again.statistics)")
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            #expect(try connection.rows("SELECT id::text, name, unit_of_measure FROM \(schema).recipe_ingredient ORDER BY id")
                    == [["2", "Pepper", "g"], ["3", "Sugar", "kg"]])
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// The same with `distinct:` (BugTracker: status text → one Status per spelling): v2 → v3 → v2,
    /// the app deletes the first Closed issue, v2 → v3 again. Every issue keeps its status (the
    /// same row, with its id), and the next way down gives every text back as it was.
    @Test func issuesKeepTheirStatusAcrossARerun() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await bugTrackerTenant(conninfo, statuses: ["Closed", "Open", "Waiting", "closed ", "Open"])
            let statuses = "SELECT i.id::text, s.name FROM \(schema).issue i LEFT JOIN \(schema).status s ON s.id = i.status_id ORDER BY i.id"
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect(try connection.rows(statuses) == [["1", "Closed"], ["2", "Open"], ["3", "Waiting"], ["4", "Closed"], ["5", "Open"]])
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            try connection.execute(unsafeSQL: "DELETE FROM \(schema).issue WHERE id = 1")
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            // Issue 4 links to the Status it linked to (Closed, id 1, given back with its id,
            // although the mapping now makes the key's row from issue 4's own spelling); the
            // archive keeps that spelling for the next way down.
            #expect(try connection.rows(statuses) == [["2", "Open"], ["3", "Waiting"], ["4", "Closed"], ["5", "Open"]])
            #expect(try connection.rows("SELECT id::text, name FROM \(schema).status WHERE id <= 3 ORDER BY id") == [["1", "Closed"], ["2", "Open"], ["3", "Waiting"]])
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            #expect(try connection.rows("SELECT id::text, status FROM \(schema).issue ORDER BY id")
                    == [["2", "Open"], ["3", "Waiting"], ["4", "closed "], ["5", "Open"]])
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
