import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// The archive is created by the first step that writes to it, never probed for by each step, and a
/// step run again replaces its own earlier entries.
@Suite("Archive presence")
struct ArchivePresenceTests {
    @Test func aStepWithNothingToArchiveLeavesTheTenantWithoutAnArchive() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try makeRecipesMigrator(conninfo)
            let schema = try await migrator.createTenant("acme", version: "v1").schema
            let connection = try Connection(conninfo, logger: .quiet("ArchivePresenceTests"))
            try connection.loadRecipes(tenants: ["acme"], recipes: 10)
            func archiveExists() throws -> Bool {
                try connection.scalar("SELECT to_regclass($1) IS NOT NULL", ["\(schema)._tm_archive"], as: Bool.self)
            }

            // v1 → v2 renames, adds and widens: it destroys nothing, so nothing is archived, and no archive made.
            #expect(try await migrator.migrate(tenant: "acme", to: "v2").outcome == .migrated)
            #expect(try !archiveExists())

            // v2 → v3 overwrites the Meat and Fish types: the archive is made for them.
            #expect(try await migrator.migrate(tenant: "acme", to: "v3").outcome == .migrated)
            #expect(try archiveExists())
            let typeEntries = "SELECT count(*)::int FROM \(schema)._tm_archive WHERE step_from = 'v2' AND step_to = 'v3' AND column_name = 'type'"
            #expect(try connection.scalar(typeEntries, as: Int.self) == 4)

            // Back and forth: the types come back, and the step run again archives them afresh, once.
            #expect(try await migrator.rollback(tenant: "acme", to: "v2").outcome == .migrated)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE type IN ('Meat', 'Fish')", as: Int.self) == 4)
            try connection.execute(unsafeSQL: "INSERT INTO \(schema)._tm_archive (step_from, step_to, table_name, column_name, row_id, value) "
                + "VALUES ('v2', 'v3', 'recipe', 'type', 999999, 'left over from an earlier run')")
            #expect(try await migrator.migrate(tenant: "acme", to: "v3").outcome == .migrated)
            #expect(try connection.scalar(typeEntries, as: Int.self) == 4, "the earlier entries of the step are replaced")
        }
    }
}
