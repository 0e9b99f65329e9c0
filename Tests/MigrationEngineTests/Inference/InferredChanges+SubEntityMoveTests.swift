import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// Issue 9's defect 3: attributes moving down into a new sub-entity and up out of a removed one
/// are inferred, without a mapping, and keep their column and values.
@Suite struct InferredChangesSubEntityMoveTests {
    @Test func bothDirectionsAreInferred() throws {
        let h = try RuleHarness("SubEntityMoves")
        let checks = h.planner.checkFamily()
        #expect(checks.allSatisfy { $0.isPossible }, Comment(rawValue: checks.map(\.description).joined(separator: "\n")))
        // Down: no existing row becomes an ImageAttachment, so their images and widths are lost to
        // the model (the column keeps them), and the plan says so.
        let down = try h.planner.plan(from: "v1", to: "v2")
        #expect(Set(down.destructiveChanges.map(\.kind)) == [.hideValues], "\(down.destructiveChanges)")
        #expect(Set(down.destructiveChanges.compactMap(\.column)) == ["image", "width"])
        // Up: ImageAttachment's rows become Attachments with their values; nothing is lost.
        let up = try h.planner.plan(from: "v2", to: "v1")
        #expect(up.destructiveChanges.isEmpty, "\(up.destructiveChanges)")
    }

    @Test func movingUpOutOfARemovedSubEntityKeepsItsRowsAndValues() async throws {
        try await RuleHarness.withBuilt("SubEntityMoves", at: "v2", seed: """
                INSERT INTO $S.attachment (id, entity, caption, image, width) VALUES
                    (1, 'Attachment', 'plain', NULL, NULL), (2, 'ImageAttachment', 'photo', '\\x0102'::bytea, 640);
                """) { h, c in
            try h.migrateExpecting("v2", "v1", on: c,
                rows: "SELECT id, caption, encode(image, 'hex'), width FROM $S.attachment ORDER BY id", ["1|plain|∅|∅", "2|photo|0102|640"])
            // And down again: the column stays where it is.
            try h.migrateExpecting("v1", "v2", on: c,
                rows: "SELECT id, entity, encode(image, 'hex') FROM $S.attachment ORDER BY id", ["1|Attachment|∅", "2|Attachment|0102"])
        }
    }
}
