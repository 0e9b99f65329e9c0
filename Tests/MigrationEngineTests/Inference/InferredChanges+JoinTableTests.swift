import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// Issue 34: a join table as Prisma makes it (`joinTable:`, `joinColumns:`, `joinKey: uniqueIndex`,
/// `joinOnUpdate:`) is renamed with its columns by a later version, in the catalog only, both ways.
@Suite struct InferredChangesJoinTableTests {
    @Test func aPrismaJoinTableRenamedWithItsColumnsKeepsItsLinksBothWays() async throws {
        try await RuleHarness.withBuilt("PrismaJoinTable", seed: """
                INSERT INTO $S."Category" (name) VALUES ('Baking'), ('Home');
                INSERT INTO $S."Post" (id, title) VALUES ('clx1', 'Sourdough'), ('clx2', 'Draft');
                INSERT INTO $S."_CategoryToPost" ("A", "B") VALUES (1, 'clx1'), (2, 'clx1'), (2, 'clx2');
                """) { h, c in
            let sql = h.statements(try h.planner.plan(from: "v1", to: "v2"), on: c).joined(separator: "\n")
            #expect(sql.contains("RENAME TO \"_PostCategories\""), "\(sql)")
            #expect(!sql.contains("INSERT") && !sql.contains("DROP TABLE"), "\(sql)")
            try h.migrateExpecting("v1", "v2", on: c, rows: "SELECT category_id, post_id FROM $S.\"_PostCategories\" ORDER BY 1, 2",
                                   ["1|clx1", "2|clx1", "2|clx2"])
            // Still a unique pair, still no primary key, and the update still cascades.
            h.expectFailure(.uniqueViolation) { try c.execute("INSERT INTO t.\"_PostCategories\" VALUES (1, 'clx1')") }
            try c.execute("UPDATE t.\"Post\" SET id = 'clx9' WHERE id = 'clx2'")
            try h.migrateExpecting("v2", "v1", on: c, rows: "SELECT \"A\", \"B\" FROM $S.\"_CategoryToPost\" ORDER BY 1, 2",
                                   ["1|clx1", "2|clx1", "2|clx9"])
            #expect(try h.rows("SELECT count(*) FROM pg_constraint WHERE conrelid = '$S.\"_CategoryToPost\"'::regclass AND contype = 'p'", on: c) == ["0"])
        }
    }
}
