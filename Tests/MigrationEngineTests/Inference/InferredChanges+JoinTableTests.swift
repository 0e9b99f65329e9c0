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

/// A join table renamed with its entities may list its pair the other way round (`book_tags
/// (book_id, tag_id)` becoming `badge_books (badge_id, book_id)`): the step makes its primary key
/// again in the model's order, both ways, so the tenant matches the model (before, it kept the old
/// order: `verify` reported it, and an online run refused the tenant for it). Its links stay.
@Suite struct InferredChangesSwappedJoinTableTests {
    @Test func aJoinTableWhosePairTurnsGetsItsKeyInTheModelsOrderBothWays() async throws {
        try await RuleHarness.withBuilt("SwappedJoinTable", seed: """
                INSERT INTO $S.book (id, title) VALUES (1, 'Sourdough'), (2, 'Knots');
                INSERT INTO $S.tag (id, word) VALUES (1, 'baking'), (2, 'sailing'), (3, 'craft');
                INSERT INTO $S.book_tags (book_id, tag_id) VALUES (1, 1), (1, 3), (2, 2), (2, 3);
                """) { h, c in
            let key = "SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM pg_constraint AS p, unnest(p.conkey) WITH ORDINALITY AS k(n, i) "
                + "JOIN pg_attribute AS a ON a.attnum = k.n WHERE a.attrelid = p.conrelid AND p.contype = 'p' AND p.conrelid = '$S.%@'::regclass"
            #expect(try h.rows(String(format: key, "book_tags"), on: c) == ["book_id,tag_id"])
            try h.migrateExpecting("v1", "v2", on: c, rows: "SELECT badge_id, book_id FROM $S.badge_books ORDER BY 1, 2", ["1|1", "2|2", "3|1", "3|2"])
            #expect(try h.rows(String(format: key, "badge_books"), on: c) == ["badge_id,book_id"])
            try h.migrateExpecting("v2", "v1", on: c, rows: "SELECT book_id, tag_id FROM $S.book_tags ORDER BY 1, 2", ["1|1", "1|3", "2|2", "2|3"])
            #expect(try h.rows(String(format: key, "book_tags"), on: c) == ["book_id,tag_id"])
        }
    }
}
