import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Three runners at once on a tenant that migrates online: the ones that come later wait for the
/// tenant, then finds it at the target and leaves it be. It never marks the migrated tenant failed.
@Suite("Online runs side by side")
struct OnlineRunRunnersTests {
    @Test(arguments: [("v1", "v2"), ("v2", "v3")], [OnlinePhase.copying, .catchingUp, .cutoverLocked])
    func laterRunnersFindTheTenantMigratedByTheFirst(path: (from: String, to: String), phase: OnlinePhase) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await AppTenant.with(conninfo, at: path.from, recipes: 200) { tenant in
                var first = try makeRecipesMigrator(conninfo)
                first.settings.online.batchRows = 50
                var secondRunner = try makeRecipesMigrator(conninfo)
                secondRunner.settings.lockTimeout = .seconds(60)
                let second = secondRunner
                let started = Locked<[Task<FleetReport, any Error>]>([])
                first.settings.online.checkpoint = { checkpoint in
                    guard checkpoint.phase == phase, started.value.isEmpty else { return }
                    let tasks = (0..<2).map { _ in Task { try await second.moveAll(.migrate(to: path.to, online: .above(rows: 10)), jobs: 1) } }
                    started.withLock { $0 = tasks }
                    // The second runner read the tenant at v1 and now waits for it.
                    let admin = try Connection(conninfo)
                    let deadline = ContinuousClock.now + .seconds(120)
                    while try admin.scalar("SELECT count(*)::int FROM pg_catalog.pg_locks WHERE locktype = 'advisory' AND NOT granted", as: Int.self) < 2 {
                        guard ContinuousClock.now < deadline else { Issue.record("the second runner never waited for the tenant"); return }
                        usleep(10_000)
                    }
                }
                let firstReport = try await first.moveAll(.migrate(to: path.to, online: .above(rows: 10)), jobs: 1)
                #expect(firstReport.entries.first?.outcome == .migrated)
                #expect(started.value.count == 2)
                for task in started.value {
                    let report = try await task.value
                    let entry = report.entries.first { $0.tenant == "acme" }
                    #expect(entry?.outcome != .failed, "\(String(describing: entry))")
                    #expect(report.failed == 0)
                }
                #expect(try tenant.recorded()?.version == path.to)
                #expect(try tenant.recorded()?.state == "ready")
                let failures = try tenant.admin.scalar("SELECT count(*)::int FROM tenant_migrator.migration_history WHERE tenant = 'acme' AND outcome = 'failed'", as: Int.self)
                #expect(failures == 0)
            }
        }
    }
}
