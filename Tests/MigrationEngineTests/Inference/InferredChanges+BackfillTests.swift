import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 22, case 6: an inferred backfill (`UPDATE … SET n = 0 WHERE n IS NULL`) is accounted: the
/// plan lists it as archived, the NULLs it overwrites come back on the way down, and in a mapped
/// step the mapping reads the NULLs before the backfill fills them.
@Suite("Inference: backfills are accounted")
struct InferredChangesBackfillTests {
    @Test func theAccountListsTheBackfillAsArchived() throws {
        let family = try ModelFamily.load(from: fixture("Backfill"))
        let plan = try MigrationPlanner(family: family).plan(from: "v1", to: "v2")
        let entries = plan.steps[0].account.entries(table: "item", column: "n")
        #expect(entries.contains { $0.overwritesInPlace == true }, "\(entries)")
        #expect(plan.archivedChanges.contains { $0.table == "item" && $0.column == "n" && $0.detail.contains("NULL") }, "\(plan.archivedChanges)")
        #expect(plan.lostChanges(archiving: false).contains { $0.column == "n" }, "without the archive the NULLs are lost")
    }

    @Test func theBackfilledNullsComeBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("Backfill", conninfo,
                insert: "INSERT INTO {schema}.item (id, name, n) VALUES (1, 'a', NULL), (2, 'b', 0), (3, 'c', 7), (4, 'd', NULL)")
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try connection.rows("SELECT n::text FROM \(schema).item ORDER BY id") == [["0"], ["0"], ["7"], ["0"]])
            // The app sets row 4 after the way up: its value wins.
            try connection.execute(unsafeSQL: "UPDATE \(schema).item SET n = 5 WHERE id = 4")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows("SELECT n::text FROM \(schema).item ORDER BY id") == [[nil], ["0"], ["7"], ["5"]])
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// Without the archive, the backfill needs consent.
    @Test func withoutTheArchiveTheBackfillNeedsConsent() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            var migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture("Backfill"))
            migrator.archives = false
            _ = try await migrator.createTenant("acme", version: "v1")
            await #expect(throws: TenantMigrationError.self) { _ = try await migrator.migrate(tenant: "acme", to: "v2") }
            #expect(try await migrator.migrate(tenant: "acme", to: "v2", allowDestructive: true).outcome == .migrated)
        }
    }

    @Test func aMappingReadsTheNullsBeforeTheBackfill() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("BackfillMapped", conninfo,
                insert: "INSERT INTO {schema}.item (id, name, n) VALUES (1, 'a', NULL), (2, 'b', 0), (3, 'c', 7)")
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try connection.rows("SELECT n::text, unknown::text FROM \(schema).item ORDER BY id") == [["-1", "true"], ["0", "false"], ["7", "false"]])
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows("SELECT n::text FROM \(schema).item ORDER BY id") == [[nil], ["0"], ["7"]])
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
