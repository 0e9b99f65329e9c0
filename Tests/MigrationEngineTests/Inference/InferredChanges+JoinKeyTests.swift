import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// Issue 34: a join table's key (`joinKey`), name (`joinTable`) and columns (`joinColumns`)
/// changing between versions. A unique index becoming the primary key (and back), and the table
/// renamed with its columns, are inferred: the links stay, and each version's schema is exactly
/// what the model makes; by single steps and fused.
@Suite struct InferredChangesJoinKeyTests {
    static let links = """
        INSERT INTO $S.category (name) VALUES ('Baking'), ('Home');
        INSERT INTO $S.post (title) VALUES ('Sourdough'), ('Draft');
        INSERT INTO $S."_CategoryToPost" ("A", "B") VALUES (1, 1), (2, 1), (2, 2);
        """

    @Test func aUniqueIndexBecomesThePrimaryKeyAndBackKeepingTheLinks() async throws {
        try await RuleHarness.withBuilt("JoinKeyChange", seed: Self.links) { h, c in
            let query = "SELECT \"A\", \"B\" FROM $S.\"_CategoryToPost\" ORDER BY 1, 2"
            // Catalog only: the unique index becomes the primary key's.
            let up = h.statements(try h.planner.plan(from: "v1", to: "v2"), on: c).joined(separator: "\n")
            #expect(up.contains("PRIMARY KEY USING INDEX \"_CategoryToPost_A_B_key\"") && !up.contains("CREATE") && !up.contains("DROP"), "\(up)")
            try h.migrateExpecting("v1", "v2", on: c, rows: query, ["1|1", "2|1", "2|2"])
            #expect(try h.rows("SELECT count(*) FROM pg_constraint WHERE conrelid = '$S.\"_CategoryToPost\"'::regclass AND contype = 'p'", on: c) == ["1"])
            h.expectFailure(.uniqueViolation) { try c.execute("INSERT INTO t.\"_CategoryToPost\" VALUES (1, 1)") }
            try h.migrateExpecting("v2", "v1", on: c, rows: query, ["1|1", "2|1", "2|2"])
            #expect(try h.rows("SELECT count(*) FROM pg_constraint WHERE conrelid = '$S.\"_CategoryToPost\"'::regclass AND contype = 'p'", on: c) == ["0"])
        }
    }

    @Test(arguments: [false, true])
    func theKeyNameAndColumnsChangedAtOnceKeepTheLinks(fused: Bool) async throws {
        try await RuleHarness.withBuilt("JoinKeyChange", seed: Self.links) { h, c in
            if fused {
                #expect(try h.planner.plan(from: "v1", to: "v3").steps.count == 1)
                try h.migrateExpecting("v1", "v3", on: c, rows: "SELECT category_id, post_id FROM $S.category_posts ORDER BY 1, 2", ["1|1", "2|1", "2|2"])
                try h.migrateExpecting("v3", "v1", on: c, rows: "SELECT \"A\", \"B\" FROM $S.\"_CategoryToPost\" ORDER BY 1, 2", ["1|1", "2|1", "2|2"])
            } else {
                try h.migrateExpecting("v1", "v2", on: c, rows: "SELECT \"A\", \"B\" FROM $S.\"_CategoryToPost\" ORDER BY 1, 2", ["1|1", "2|1", "2|2"])
                try h.migrateExpecting("v2", "v3", on: c, rows: "SELECT category_id, post_id FROM $S.category_posts ORDER BY 1, 2", ["1|1", "2|1", "2|2"])
                try h.migrateExpecting("v3", "v2", on: c, rows: "SELECT \"A\", \"B\" FROM $S.\"_CategoryToPost\" ORDER BY 1, 2", ["1|1", "2|1", "2|2"])
            }
        }
    }
}
