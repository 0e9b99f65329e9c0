import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// Steps whose new column names are old names of other columns: nothing may collide (42701), and
/// every value must land in the right column, up and down.
@Suite struct InferredChangesNameClashTests {
    @Test func reusedAndSwappedColumnNamesKeepTheirValues() async throws {
        try await RuleHarness.withBuilt("NameClash", seed: "INSERT INTO $S.item (label, title, \"left\", \"right\", code) VALUES ('old label', 'the title', 1, 2, 7)") { harness, connection in

            try harness.migrateExpecting("v1", "v2", on: connection,
                rows: "SELECT label, \"left\", \"right\", code FROM $S.item", ["the title|2|1|7"])

            try harness.migrateExpecting("v2", "v3", on: connection,
                rows: "SELECT label, \"left\", \"right\", serial, code FROM $S.item", ["the title|2|1|7|new"])

            try harness.migrateExpectingSchema("v3", "v1", on: connection)
            // v1's label was dropped on the way up (the archive kept it); title and the swapped pair come back.
            #expect(try harness.rows("SELECT label, title, \"left\", \"right\", code FROM $S.item", on: connection) == ["old label|the title|1|2|7"])
        }
    }
}
