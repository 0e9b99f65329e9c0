import Foundation
import LibPQ
import MetricsTestKit
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// An online run's progress in metrics (through an injected `TestMetrics`): rows copied, changes
/// caught up, the phases it went through, and how long the cutover held writes and reads.
@Suite("Online metrics")
struct MigratorMetricsOnlineTests {
    @Test func anOnlineRunCountsItsRowsChangesAndPhases() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            _ = try recipesTenant("acme", recipes: 25, conninfo)
            let metrics = TestMetrics()
            var migrator = try makeRecipesMigrator(conninfo)
            migrator.observability = TenantMigrator.Observability(metrics: metrics)
            migrator.settings.online.batchRows = 30
            let changed = Locked(false)
            migrator.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .built, !changed.value else { return }
                changed.withLock { $0 = true }
                _ = try Connection(conninfo).execute("UPDATE tenant_acme.recipe SET servings = 3 WHERE id <= 4")
            }
            let result = try await migrator.migrate(tenant: "acme", .migrate(to: "v2", online: .on))
            let progress = try #require(result.online)
            let tenant = [("family", "Recipes"), ("tenant", "acme")]
            #expect(progress.rowsCopied == 100)
            #expect(metrics.counterTotal(label: MigratorMetrics.onlineRowsCopiedTotal, dimensions: tenant) == 100)
            #expect(progress.changesCaughtUp == 4)
            #expect(metrics.counterTotal(label: MigratorMetrics.onlineChangesTotal, dimensions: tenant) == 4)
            for phase in OnlinePhase.allCases {
                #expect(metrics.counterTotal(label: MigratorMetrics.onlinePhasesTotal, dimensions: tenant + [("phase", phase.rawValue)]) == 1, "\(phase)")
            }
            let writes = try metrics.expectTimer(MigratorMetrics.onlineWritesBlocked, [("family", "Recipes")])
            let reads = try metrics.expectTimer(MigratorMetrics.onlineReadsBlocked, [("family", "Recipes")])
            #expect(writes.values.count == 1 && reads.values.count == 1)
            #expect(writes.values[0] >= reads.values[0])
        }
    }
}
