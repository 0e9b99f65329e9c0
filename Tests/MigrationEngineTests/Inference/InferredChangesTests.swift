import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// Core Data's lightweight rules, one test each: build the old version with rows, migrate up,
/// verify schema and data, migrate down, verify again.
@Suite struct InferredChangesTests {
    // MARK: a. entities

    @Test func addAndRemoveAnEntity() async throws {
        try await RuleHarness.withBuilt("Entities", seed: "INSERT INTO $S.author (name) VALUES ('Ann')") { h, c in
            let up = try h.migrate("v1", "v2", on: c)
            #expect(up.destructiveChanges.isEmpty)
            try h.expectSchema("v2", on: c)
            try c.execute("INSERT INTO t.publisher (name, founded) VALUES ('Acme', 1900)")
            #expect(try h.rows("SELECT name FROM $S.author", on: c) == ["Ann"])

            let down = try h.planner.plan(from: "v2", to: "v1")
            #expect(down.destructiveChanges.contains { $0.kind == .dropTable && $0.table == "publisher" })
            try h.migrateExpecting("v2", "v1", on: c, rows: "SELECT name FROM $S.author", ["Ann"])
            #expect(try h.rows("SELECT to_regclass('t.publisher')::text", on: c) == ["∅"])
        }
    }

    // MARK: b. attributes and relationships

    @Test func addAndRemoveAnAttributeAndARelationship() async throws {
        try await RuleHarness.withBuilt("Properties", seed: "INSERT INTO $S.author (name) VALUES ('Ann'); INSERT INTO $S.book (title) VALUES ('Dune')") { h, c in
            try h.migrateExpecting("v1", "v2", on: c, rows: "SELECT title, pages, author_id FROM $S.book", ["Dune|∅|∅"])
            try c.execute("UPDATE t.book SET pages = 412, author_id = 1")

            let down = try h.planner.plan(from: "v2", to: "v1")
            let dropped = Set(down.destructiveChanges.compactMap(\.column))
            #expect(dropped == ["pages", "author_id"])
            try h.migrateExpecting("v2", "v1", on: c, rows: "SELECT title FROM $S.book", ["Dune"])
        }
    }

    // MARK: c. renames

    @Test func renameEntityAttributeAndRelationshipKeepsData() async throws {
        try await RuleHarness.withBuilt("Renames", seed: """
                INSERT INTO $S.writer (name, bio) VALUES ('Ann', 'born'), ('Bob', NULL);
                INSERT INTO $S.novel (title, writer_id) VALUES ('A1', 1), ('B1', 2), ('A2', 1);
                """) { h, c in
            for (from, to) in [("v1", "v2"), ("v2", "v1")] {
                let sql = h.statements(try h.planner.plan(from: from, to: to), on: c)
                #expect(sql.contains { $0.contains("RENAME") }, "\(from) → \(to): \(sql)")
                #expect(!sql.contains { $0.uppercased().contains("DROP") }, "\(from) → \(to): \(sql)")
                #expect(try h.planner.plan(from: from, to: to).destructiveChanges.isEmpty)
            }
            try h.migrateExpecting("v1", "v2", on: c,
                rows: "SELECT a.full_name, a.bio, b.title FROM $S.book b JOIN $S.author a ON a.id = b.author_id ORDER BY b.id",
                ["Ann|born|A1", "Bob|∅|B1", "Ann|born|A2"])
            try h.migrateExpecting("v2", "v1", on: c,
                rows: "SELECT w.name, w.bio, n.title FROM $S.novel n JOIN $S.writer w ON w.id = n.writer_id ORDER BY n.id",
                ["Ann|born|A1", "Bob|∅|B1", "Ann|born|A2"])
        }
    }

    // MARK: d. optionality and defaults

    @Test func optionalityAndDefaults() async throws {
        try await RuleHarness.withBuilt("Optionality", seed: "INSERT INTO $S.item (name, size, code) VALUES ('a', NULL, 'x'), ('b', 7, 'y')") { h, c in
            try h.migrateExpectingSchema("v1", "v2", on: c)
            // color: new optional (NULL); weight: new required (default 5); size: NULLs backfilled with 1.
            #expect(try h.rows("SELECT name, size, code, color, weight FROM $S.item ORDER BY id", on: c)
                    == ["a|1|x|∅|5", "b|7|y|∅|5"])
            // code is optional now.
            try c.execute("INSERT INTO t.item (name, code) VALUES ('c', NULL)")

            let down = try h.planner.plan(from: "v2", to: "v1")
            #expect(Set(down.destructiveChanges.compactMap(\.column)) == ["color", "weight"])
            try h.migrateExpectingSchema("v2", "v1", on: c)
            // code required again: its NULL is backfilled with v1's default; size keeps its values,
            // and the NULL the way up backfilled comes back from the archive.
            #expect(try h.rows("SELECT name, size, code FROM $S.item ORDER BY id", on: c) == ["a|∅|x", "b|7|y", "c|1|none"])
        }
    }

    // MARK: e. type changes

    @Test func wideningKeepsValuesAndDeclaredNarrowingRollsBack() async throws {
        try await RuleHarness.withBuilt("Widening", seed: "INSERT INTO $S.measure (count, amount, ratio, code) VALUES (32000, 2000000000, 1.5, 42), (-7, -3, 0.25, -1)") { h, c in
            let up = try h.planner.plan(from: "v1", to: "v2")
            #expect(h.statements(up, on: c).contains { $0.contains("USING") })
            try h.migrateExpectingSchema("v1", "v2", on: c)
            let v2Rows = try h.rows("SELECT count, amount, ratio, code, pg_typeof(code)::text FROM $S.measure ORDER BY id", on: c)
            #expect(v2Rows == ["32000|2000000000|1.5|42|text", "-7|-3|0.25|-1|text"])
            try h.migrateExpecting("v2", "v3", on: c,
                rows: "SELECT count, pg_typeof(count)::text FROM $S.measure ORDER BY id", ["32000|bigint", "-7|bigint"])

            // Down: declared narrowing; every value fits.
            #expect(try h.planner.plan(from: "v3", to: "v1").destructiveChanges.contains { $0.kind == .narrowType })
            try h.migrateExpectingSchema("v3", "v2", on: c)
            try h.migrateExpecting("v2", "v1", on: c,
                rows: "SELECT count, amount, ratio, code FROM $S.measure ORDER BY id", ["32000|2000000000|1.5|42", "-7|-3|0.25|-1"])

            // A value that does not fit fails the run, and the transaction leaves the tenant as it was.
            try h.migrate("v1", "v2", on: c)
            try c.execute("UPDATE t.measure SET count = 70000 WHERE id = 1")
            h.expectFailure(.numericValueOutOfRange) { try h.migrate("v2", "v1", on: c) }
            try h.expectSchema("v2", on: c)
            #expect(try h.rows("SELECT count FROM $S.measure ORDER BY id", on: c) == ["70000", "-7"])
        }
    }

    /// A declared narrowing to a shorter character type fails on a value that does not fit, as the
    /// plan says, rather than cutting it (an explicit cast to `varchar(n)` truncates silently).
    @Test func declaredShorteningFailsOnAValueThatDoesNotFit() async throws {
        try await RuleHarness.withBuilt("Shortening", seed: "INSERT INTO $S.label (name, code) VALUES ('Salt', 'abc'), ('Pepper', 'de')") { h, c in
            h.expectFailure(.stringDataRightTruncation) { try h.migrate("v1", "v2", on: c) }
            try h.expectSchema("v1", on: c)
            #expect(try h.rows("SELECT name, code FROM $S.label ORDER BY id", on: c) == ["Salt|abc", "Pepper|de"])

            try c.execute("UPDATE t.label SET name = 'Pep', code = 'abcd' WHERE id = 2")
            h.expectFailure(.stringDataRightTruncation) { try h.migrate("v1", "v2", on: c) }
            try h.expectSchema("v1", on: c)

            try c.execute("UPDATE t.label SET code = 'de' WHERE id = 2")
            try h.migrateExpecting("v1", "v2", on: c, rows: "SELECT name, code FROM $S.label ORDER BY id", ["Salt|abc", "Pep|de"])
            try h.migrateExpecting("v2", "v1", on: c, rows: "SELECT name, code FROM $S.label ORDER BY id", ["Salt|abc", "Pep|de"])
        }
    }

    /// A declared narrowing of a numeric's scale rounds a value up past what the old type holds
    /// (99999.999 at `numeric(8,3)` is 100000.0 at `numeric(8,1)`): the step migrates it and archives
    /// each value the rounding changes (the archive's test cast the rounded value back to
    /// `numeric(8,3)`, which failed the step with 22003). The way down, `numeric(8,1)` →
    /// `numeric(8,3)`, narrows the integer digits (7 → 5): it gives every archived value back
    /// before the column takes its type, so the rounded-up row comes back as 99999.999 (seen
    /// failing: 22003, the tenant left at v2, though the archive held its value), and up and down
    /// again give the same. A value made since that the old type cannot hold fails the way down,
    /// naming its row (22003), and leaves the tenant at v2.
    @Test func declaredNumericNarrowingThatRoundsPastTheOldTypeIsArchived() async throws {
        try await RuleHarness.withBuilt("NumericNarrowing", seed: "INSERT INTO $S.price (amount) VALUES (99999.999), (1.25), (1.2), (NULL), (-99.95)") { h, c in
            let up = ["100000.0", "1.3", "1.2", "∅", "-100.0"], down = ["99999.999", "1.250", "1.200", "∅", "-99.950"]
            try h.migrateExpecting("v1", "v2", on: c, rows: "SELECT amount FROM $S.price ORDER BY id", up)
            try h.migrateExpecting("v2", "v1", on: c, rows: "SELECT amount FROM $S.price ORDER BY id", down)
            try h.migrateExpecting("v1", "v2", on: c, rows: "SELECT amount FROM $S.price ORDER BY id", up)
            try h.migrateExpecting("v2", "v1", on: c, rows: "SELECT amount FROM $S.price ORDER BY id", down)
            try h.migrateExpecting("v1", "v2", on: c, rows: "SELECT amount FROM $S.price ORDER BY id", up)
            // A row made since, which numeric(8,3) cannot hold: named, and nothing changes.
            try c.execute("INSERT INTO t.price (amount) VALUES (123456.7)")
            do {
                _ = try h.migrate("v2", "v1", on: c)
                Issue.record("the way down put 123456.7 into numeric(8,3)")
            } catch let error as NarrowedValuesDoNotFit {
                #expect(error.sampleRows == ["6"] && error.rowCount == 1 && "\(error)".contains("22003") && "\(error)".contains("Price.amount"), "\(error)")
            }
            try h.expectSchema("v2", on: c)
            #expect(try h.rows("SELECT amount FROM $S.price ORDER BY id", on: c) == up + ["123456.7"])
        }
    }

    @Test func undeclaredNarrowingIsRefusedAtPlanning() throws {
        let h = try RuleHarness("Narrowing")
        do {
            _ = try h.planner.plan(from: "v1", to: "v2")
            Issue.record("narrowing int32 → int16 was planned")
        } catch let error as PlanningError {
            guard case let .stepNotPossible(from, to, reasons) = error else { Issue.record("\(error)"); return }
            #expect(from == "v1" && to == "v2")
            #expect(reasons.contains { $0.contains("Measure.count") && $0.contains("narrow") && $0.contains("allowsNarrowing") }, "\(reasons)")
        }
        // The other way widens.
        #expect(try h.planner.plan(from: "v2", to: "v1").steps.count == 1)
    }

    // MARK: f. to-one ↔ to-many

    @Test func toOneBecomesManyToManyAndBack() async throws {
        try await RuleHarness.withBuilt("ToMany", seed: """
                INSERT INTO $S.author (name) VALUES ('Ann'), ('Bob');
                INSERT INTO $S.book (title, author_id) VALUES ('A1', 1), ('B1', 2), ('A2', 1), ('none', NULL);
                """) { h, c in
            let up = try h.planner.plan(from: "v1", to: "v2")
            #expect(up.destructiveChanges.isEmpty, "\(up.destructiveChanges)")
            try h.migrateExpecting("v1", "v2", on: c,
                rows: "SELECT a.name, b.title FROM $S.author_books j JOIN $S.author a ON a.id = j.author_id JOIN $S.book b ON b.id = j.book_id ORDER BY b.id",
                ["Ann|A1", "Bob|B1", "Ann|A2"])
            // A second author for A1: the to-one can keep only one.
            try c.execute("INSERT INTO t.author_books (author_id, book_id) VALUES (2, 1)")

            let down = try h.planner.plan(from: "v2", to: "v1")
            #expect(down.destructiveChanges.contains { $0.kind == .dropLinks }, "\(down.destructiveChanges)")
            try h.migrateExpecting("v2", "v1", on: c,
                rows: "SELECT title, author_id FROM $S.book ORDER BY id", ["A1|1", "B1|2", "A2|1", "none|∅"])
        }
    }

    @Test func oneToManyWhoseKeyChangesSides() async throws {
        try await RuleHarness.withBuilt("FlipKey", seed: """
                INSERT INTO $S.author (name) VALUES ('Ann'), ('Bob'), ('Cid');
                INSERT INTO $S.book (title, author_id) VALUES ('A1', 1), ('B1', 2), ('A2', 1);
                """) { h, c in
            // Up: each author keeps one book (Ann had two): destructive.
            let up = try h.planner.plan(from: "v1", to: "v2")
            #expect(up.destructiveChanges.contains { $0.kind == .dropLinks }, "\(up.destructiveChanges)")
            try h.migrateExpecting("v1", "v2", on: c, rows: "SELECT name, book_id FROM $S.author ORDER BY id", ["Ann|1", "Bob|2", "Cid|∅"])
            try c.execute("UPDATE t.author SET book_id = 1 WHERE name = 'Cid'")

            try h.migrateExpectingSchema("v2", "v1", on: c)
            // Book 1 had authors Ann and Cid: the to-one keeps the lowest; A2's author, dropped on
            // the way up, comes back from the archive.
            #expect(try h.rows("SELECT title, author_id FROM $S.book ORDER BY id", on: c) == ["A1|1", "B1|2", "A2|1"])
        }
    }
}
