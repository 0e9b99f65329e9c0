import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// Inheritance changes, delete rules, uniqueness and indexes.
@Suite struct InferredChangesStructureTests {
    // MARK: g. inheritance

    static let attachmentsSeed = """
        INSERT INTO $S.image_attachment (caption, width) VALUES ('img1', 10), ('img2', NULL);
        INSERT INTO $S.file_attachment (caption, path) VALUES ('f1', '/a'), ('f2', '/b');
        INSERT INTO $S.note (title, file_id) VALUES ('n1', 2), ('n2', NULL);
        """

    @Test func siblingsGainAnAbstractParentAndLoseIt() async throws {
        try await RuleHarness.withBuilt("Attachments", seed: Self.attachmentsSeed) { h, c in
            try h.migrateExpecting("v1", "v2", on: c,
                rows: "SELECT entity, caption, width, path FROM $S.attachment ORDER BY caption",
                ["FileAttachment|f1|∅|/a", "FileAttachment|f2|∅|/b", "ImageAttachment|img1|10|∅", "ImageAttachment|img2|∅|∅"])
            #expect(try h.rows("SELECT count(DISTINCT id) FROM $S.attachment", on: c) == ["4"])
            // The note still points at f2, whichever table's ids were offset.
            #expect(try h.rows("SELECT n.title, a.caption FROM $S.note n LEFT JOIN $S.attachment a ON a.id = n.file_id ORDER BY n.title", on: c)
                    == ["n1|f2", "n2|∅"])
            try c.execute("INSERT INTO t.attachment (entity, caption, path) VALUES ('FileAttachment', 'f3', '/c')")

            try h.migrateExpecting("v2", "v1", on: c,
                rows: "SELECT caption, width FROM $S.image_attachment ORDER BY caption", ["img1|10", "img2|∅"])
            #expect(try h.rows("SELECT caption, path FROM $S.file_attachment ORDER BY caption", on: c) == ["f1|/a", "f2|/b", "f3|/c"])
            #expect(try h.rows("SELECT n.title, f.caption FROM $S.note n LEFT JOIN $S.file_attachment f ON f.id = n.file_id ORDER BY n.title", on: c)
                    == ["n1|f2", "n2|∅"])
            // New rows get fresh ids in both tables.
            try c.execute("INSERT INTO t.image_attachment (caption) VALUES ('img3')")
            try c.execute("INSERT INTO t.file_attachment (caption, path) VALUES ('f4', '/d')")
        }
    }

    @Test func attributeMovesDownToASubEntityAndBackUp() async throws {
        try await RuleHarness.withBuilt("Attachments", seed: Self.attachmentsSeed) { h, c in
            try h.migrate("v1", "v2", on: c)
            try h.migrateExpecting("v2", "v3", on: c,
                rows: "SELECT caption FROM $S.attachment WHERE entity = 'ImageAttachment' ORDER BY caption", ["img1", "img2"])
            // A file attachment needs no caption any more; an image still does.
            try c.execute("INSERT INTO t.attachment (entity, caption, path) VALUES ('FileAttachment', NULL, '/c')")
            h.expectFailure(.checkViolation) { try c.execute("INSERT INTO t.attachment (entity, caption) VALUES ('ImageAttachment', NULL)") }

            try h.migrateExpecting("v3", "v2", on: c, rows: "SELECT caption FROM $S.attachment WHERE path = '/c'", ["untitled"])
            #expect(try h.rows("SELECT count(*) FROM $S.attachment", on: c) == ["5"])
        }
    }

    @Test func skippingInheritanceVersionsKeepsEveryCaption() async throws {
        let h = try RuleHarness("Attachments")
        try await TestPostgres.withDatabase { c in
            let captions = "SELECT 'image', caption FROM $S.image_attachment UNION ALL SELECT 'file', caption FROM $S.file_attachment ORDER BY 1, 2"
            for schema in ["fused", "steps"] { try h.build("v1", schema: schema, seed: Self.attachmentsSeed, on: c) }
            try h.migrate("v1", "v3", schema: "fused", on: c)
            try h.migrate("v1", "v2", schema: "steps", on: c)
            try h.migrate("v2", "v3", schema: "steps", on: c)
            let v3 = "SELECT entity, caption, width, path FROM $S.attachment ORDER BY entity, path, caption"
            for schema in ["fused", "steps"] { try h.expectSchema("v3", schema: schema, on: c) }
            #expect(try h.rows(v3, schema: "fused", on: c) == (try h.rows(v3, schema: "steps", on: c)))
            #expect(try h.rows("SELECT caption FROM $S.attachment WHERE entity = 'ImageAttachment' ORDER BY 1", schema: "fused", on: c) == ["img1", "img2"])

            try h.migrate("v3", "v1", schema: "fused", on: c)
            try h.migrate("v3", "v2", schema: "steps", on: c)
            try h.migrate("v2", "v1", schema: "steps", on: c)
            for schema in ["fused", "steps"] {
                try h.expectSchema("v1", schema: schema, on: c)
                #expect(try h.rows(captions, schema: schema, on: c) == ["file|f1", "file|f2", "image|img1", "image|img2"], "\(schema)")
                #expect(try h.rows("SELECT n.title, f.path FROM $S.note n LEFT JOIN $S.file_attachment f ON f.id = n.file_id ORDER BY 1", schema: schema, on: c)
                        == ["n1|/b", "n2|∅"], "\(schema)")
            }
        }
    }

    @Test func entityJoinsAConcreteParentAndLeavesIt() async throws {
        try await RuleHarness.withBuilt("Posts", seed: """
                INSERT INTO $S.post (title) VALUES ('p1'), ('p2');
                INSERT INTO $S.photo (url) VALUES ('u1'), ('u2');
                INSERT INTO $S.comment (text, photo_id) VALUES ('c1', 2), ('c2', 1), ('c3', NULL);
                """) { h, c in
            try h.migrateExpecting("v1", "v2", on: c,
                rows: "SELECT id, entity, title, url FROM $S.post ORDER BY id",
                ["1|Post|p1|∅", "2|Post|p2|∅", "3|Photo|untitled|u1", "4|Photo|untitled|u2"])
            #expect(try h.rows("SELECT c.text, p.url FROM $S.comment c LEFT JOIN $S.post p ON p.id = c.photo_id ORDER BY c.text", on: c)
                    == ["c1|u2", "c2|u1", "c3|∅"])
            try c.execute("INSERT INTO t.post (title) VALUES ('p5')")

            try h.migrateExpecting("v2", "v1", on: c, rows: "SELECT title FROM $S.post ORDER BY id", ["p1", "p2", "p5"])
            #expect(try h.rows("SELECT url FROM $S.photo ORDER BY id", on: c) == ["u1", "u2"])
            #expect(try h.rows("SELECT c.text, p.url FROM $S.comment c LEFT JOIN $S.photo p ON p.id = c.photo_id ORDER BY c.text", on: c)
                    == ["c1|u2", "c2|u1", "c3|∅"])
            try c.execute("INSERT INTO t.photo (url) VALUES ('u3')")
        }
    }

    // MARK: h. delete rules, uniqueness, indexes

    static let rulesSeed = """
        INSERT INTO $S.author (name) VALUES ('Ann'), ('Bob');
        INSERT INTO $S.book (title, isbn, author_id) VALUES ('A1', '111', 1), ('B1', '222', 2), ('B2', NULL, 2);
        """

    @Test func deleteRuleUniquenessAndIndexChanges() async throws {
        try await RuleHarness.withBuilt("Rules", seed: Self.rulesSeed) { h, c in
            let indexes = "SELECT indexname FROM pg_indexes WHERE schemaname = 't' AND tablename = 'book' ORDER BY 1"
            try h.migrateExpectingSchema("v1", "v2", on: c)
            #expect(try h.rows(indexes, on: c) == ["book_author_id_idx", "book_isbn_key", "book_pkey", "book_title_idx"])
            // cascade: deleting Bob deletes his books.
            try c.execute("DELETE FROM t.author WHERE name = 'Bob'")
            #expect(try h.rows("SELECT title FROM $S.book ORDER BY id", on: c) == ["A1"])
            h.expectFailure(.uniqueViolation) { try c.execute("INSERT INTO t.book (title, isbn) VALUES ('X', '111')") }

            try h.migrateExpectingSchema("v2", "v1", on: c)
            #expect(try h.rows(indexes, on: c) == ["book_author_id_idx", "book_pkey"])
            // nullify: deleting Ann keeps her book, unlinked.
            try c.execute("DELETE FROM t.author WHERE name = 'Ann'")
            #expect(try h.rows("SELECT title, author_id FROM $S.book ORDER BY id", on: c) == ["A1|∅"])
            try c.execute("INSERT INTO t.book (title, isbn) VALUES ('X', '111')")
        }
    }

    @Test func aDuplicateFailsTheNewUniqueConstraint() async throws {
        try await RuleHarness.withBuilt("Rules", seed: Self.rulesSeed + "INSERT INTO $S.book (title, isbn) VALUES ('dup', '111');") { h, c in
            h.expectFailure(.uniqueViolation) { try h.migrate("v1", "v2", on: c) }
            try h.expectSchema("v1", on: c)
            #expect(try h.rows("SELECT count(*) FROM $S.book", on: c) == ["4"])
        }
    }
}
