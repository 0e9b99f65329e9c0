import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// Renaming a sub-entity renames its rows' discriminator values, so the check constraint that lists
/// the concrete entities is replaced around the update (it was kept, and the update broke it).
@Suite struct SubEntityRenameTests {
    @Test func renamingASubEntityReplacesTheDiscriminatorCheck() async throws {
        try await RuleHarness.withBuilt("SubEntityRename", seed: "INSERT INTO $S.media (entity, caption) VALUES ('Photo', 'steam'); INSERT INTO $S.media (entity, url) VALUES ('Video', 'u')") { h, c in
            try h.migrateExpecting("v1", "v2", on: c,
                rows: "SELECT entity, caption FROM $S.media ORDER BY id", ["Picture|steam", "Video|∅"])
            try h.migrateExpecting("v2", "v1", on: c, rows: "SELECT entity FROM $S.media ORDER BY id", ["Photo", "Video"])
        }
    }
}
