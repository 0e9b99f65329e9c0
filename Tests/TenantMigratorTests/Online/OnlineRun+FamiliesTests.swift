import Foundation
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Online migrations of the engine's fixture families, both ways, on generated data (NULLs
/// included) while generated changes hit every table: each ends exactly where an offline migration
/// of the final data ends, or fails where it fails. The families cover every mode: catalog-only
/// (Renames), caught up in a shadow (renames, new and dropped columns and tables, type changes,
/// backfills, archived drops, discriminator renames, foreign keys, mapped steps), and writes-wait
/// (link and row moves between tables); BugTracker's distinct mapping is caught up by key.
@Suite("Online runs of every kind of step", .serialized)
struct OnlineRunFamiliesTests {
    static let cases: [(family: String, from: String, to: String)] = [
        ("Entities", "v1", "v2"), ("Entities", "v2", "v1"), ("EveryKind", "v2", "v1"), ("NameClash", "v1", "v3"), ("NameClash", "v3", "v1"),
        ("Notes", "v1", "v2"), ("Notes", "v2", "v1"), ("Optionality", "v1", "v2"), ("Optionality", "v2", "v1"), ("Properties", "v1", "v2"),
        ("Properties", "v2", "v1"), ("Renames", "v1", "v2"), ("Skip", "v1", "v3"), ("Skip", "v3", "v1"), ("SubEntityMoves", "v1", "v2"),
        ("SubEntityRename", "v1", "v2"), ("Tracker", "v2", "v1"), ("Widening", "v1", "v3"), ("Widening", "v3", "v1"), ("DeclaredLoss", "v1", "v2"),
        ("LossyNames", "v1", "v2"), ("ToMany", "v1", "v2"), ("ToMany", "v2", "v1"), ("Posts", "v1", "v2"), ("FlipKey", "v1", "v2"),
        ("BugTracker", "v2", "v3"), ("BugTracker", "v1", "v3"), ("BugTracker", "v3", "v2"), ("SerialKeys", "v1", "v2"), ("SerialKeys", "v2", "v1"),
    ]


    @Test(arguments: cases)
    func anOnlineMigrationEndsAsAnOfflineOne(family name: String, from: String, to: String) async throws {
        let directory = PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/\(name)")
        try await expectOnlineEndsAsOffline(directory: directory, from: from, to: to, label: name)
    }
}
