import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

@Suite("Fleet dry runs")
struct DryRunFleetTests {
    @Test func aDryRunOverAHundredTenantsReportsTheOneThatWouldFailAndChangesNothing() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, _, connection) = try await recipesFleet(conninfo, "d", 100, recipes: 5)
            // d050's app forbids Entrée, which v2 → v3 turns its Meat and Fish recipes into.
            try connection.execute("ALTER TABLE tenant_d050.recipe ADD CONSTRAINT no_entree CHECK (type <> 'Entrée')")
            let before = try await TestPostgres.dump(conninfo)

            let report = try await migrator.migrateAll(jobs: 4, mode: .dryRun)
            #expect(report.mode == .dryRun)
            #expect(report.failed == 1)
            #expect(report.migrated == 99)
            let failing = report.entries.first { $0.outcome == .failed }
            #expect(failing?.tenant == "d050")
            #expect(failing?.sqlState == "23514")
            #expect(failing?.error?.contains("no_entree") == true)
            #expect(report.entries.filter { $0.outcome == .migrated }.allSatisfy { ($0.rowsAffected ?? 0) > 0 })

            // Through the CLI: the same, with exit code 1; and the JSON says it was a dry run.
            #expect(try await runTenantMigrate(conninfo, ["migrate", "--all", "--dry-run", "--json"]) == 1)

            let after = try await TestPostgres.dump(conninfo)
            #expect(after == before, "the dry run changed the database: \(TestPostgres.dumpChanges(before, after).prefix(10))")
        }
    }
}
