import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Runners side by side on a tenant that migrates online: the ones that come later wait for the
/// tenant, then find it at the target and leave it be. They never mark the migrated tenant failed.
///
/// The later runners are `tenant-migrate` processes, as at a deploy: tasks of this process could
/// wait for a thread of the cooperative pool while the first runner's checkpoint blocks one and
/// the other tests hold the rest.
@Suite("Online runs side by side")
struct OnlineRunRunnersTests {
    /// `count` runners of `arguments`, started from the first run's checkpoint; ``start()``
    /// returns once each waits for the tenant: for its catalog row, which the first run locks in
    /// its cutover, or for the first run's lease (the runner logs that it waits, with `--verbose`).
    final class LaterRunners: Sendable {
        let conninfo: String, arguments: [String], count: Int
        let runs = Locked<[TenantMigrateExecutable.Running]>([])

        init(_ conninfo: String, _ arguments: [String], count: Int = 2) {
            (self.conninfo, self.arguments, self.count) = (conninfo, arguments, count)
        }

        func start() throws {
            guard runs.value.isEmpty else { return }
            let started = try (0..<count).map { _ in
                try TenantMigrateExecutable.start(arguments + ["--json", "--verbose", "--database-url", conninfo, "--migrations", migrationsDirectory])
            }
            runs.withLock { $0 = started }
            let watcher = try Connection(conninfo)
            let deadline = ContinuousClock.now + .seconds(300)
            func waiting() throws -> Int {
                let forTheLease = try started.filter { try $0.errorOutputSoFar().contains("runs in another session; waiting for it to end") }.count
                let forTheRow = try watcher.scalar(
                    "SELECT count(*)::int FROM pg_catalog.pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'", as: Int.self
                )
                return forTheLease + forTheRow
            }
            while try waiting() < count {
                guard ContinuousClock.now < deadline, started.allSatisfy(\.process.isRunning) else {
                    Issue.record("the later runners never waited for the tenant")
                    return
                }
                usleep(10_000)
            }
        }

        /// Each runner's JSON report, once it ended.
        func reports() async throws -> [(status: Int32, report: [String: Any])] {
            var reports: [(Int32, [String: Any])] = []
            for run in runs.value {
                let output = try await run.finish()
                let report = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any] ?? [:]
                reports.append((output.status, report))
            }
            return reports
        }
    }

    @Test(.enabled(if: TenantMigrateExecutable.url != nil, "needs the tenant-migrate executable beside the test bundle"),
          arguments: [("v1", "v2"), ("v2", "v3")], [OnlinePhase.copying, .catchingUp, .cutoverLocked])
    func laterRunnersFindTheTenantMigratedByTheFirst(path: (from: String, to: String), phase: OnlinePhase) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await AppTenant.with(conninfo, at: path.from, recipes: 200) { tenant in
                var first = try makeRecipesMigrator(conninfo)
                first.settings.online.batchRows = 50
                let later = LaterRunners(conninfo, ["migrate", "--all", "--to", path.to, "--online-above", "10", "--lock-timeout", "60000"])
                first.settings.online.checkpoint = { checkpoint in
                    if checkpoint.phase == phase { try later.start() }
                }
                let firstReport = try await first.moveAll(.migrate(to: path.to, online: .above(rows: 10)), jobs: 1)
                #expect(firstReport.entries.first?.outcome == .migrated)
                for (status, report) in try await later.reports() {
                    #expect(status == 0, "\(report)")
                    #expect((report["summary"] as? [String: Int])?["failed"] == 0, "\(report)")
                }
                #expect(try tenant.recorded()?.version == path.to)
                #expect(try tenant.recorded()?.state == "ready")
                let failures = try tenant.admin.scalar(
                    "SELECT count(*)::int FROM tenant_migrator.migration_history WHERE tenant = 'acme' AND outcome = 'failed'", as: Int.self
                )
                #expect(failures == 0)
            }
        }
    }

    /// A runner that finds another migrating the tenant waits for it, however long that takes
    /// (its wait holds nothing the app needs), rather than give up after its own lock timeouts and
    /// record a failure of a tenant that the other migrates correctly. Here the later runners
    /// wait at least forty times their two 50 ms lock timeouts and backoff: while the first copies
    /// (holding its lease), and while it holds the tenant's row in its cutover (a lock timeout
    /// there is the other run's, not an attempt of theirs).
    @Test(.enabled(if: TenantMigrateExecutable.url != nil, "needs the tenant-migrate executable beside the test bundle"),
          arguments: [false, true], [OnlinePhase.copying, .cutoverLocked])
    func aRunnerWaitsForAnotherMigratingTheTenantBeyondItsLockTimeout(online: Bool, phase: OnlinePhase) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await AppTenant.with(conninfo, at: "v1", recipes: 200) { tenant in
                var first = try makeRecipesMigrator(conninfo)
                first.settings.online.batchRows = 50
                let later = LaterRunners(conninfo, ["migrate", "--all", "--to", "v2", "--lock-timeout", "50", "--max-attempts", "2"]
                    + (online ? ["--online-above", "10"] : []))
                first.settings.online.checkpoint = { checkpoint in
                    guard checkpoint.phase == phase, later.runs.value.isEmpty else { return }
                    try later.start()
                    let deadline = ContinuousClock.now + .seconds(phase == .copying ? 10 : 3)
                    while ContinuousClock.now < deadline, later.runs.value.contains(where: \.process.isRunning) { usleep(20_000) }
                }
                let firstReport = try await first.moveAll(.migrate(to: "v2", online: .on), jobs: 1)
                #expect(firstReport.entries.first?.outcome == .migrated)
                for (status, report) in try await later.reports() {
                    #expect(status == 0, "\(report)")
                    let entries = report["entries"] as? [[String: Any]] ?? []
                    #expect(entries.allSatisfy { $0["outcome"] as? String == "skipped" }, "\(report)")
                }
                #expect(try tenant.recorded()?.version == "v2")
                #expect(try tenant.recorded()?.state == "ready")
                let failures = try tenant.admin.scalar(
                    "SELECT count(*)::int FROM tenant_migrator.migration_history WHERE tenant = 'acme' AND outcome = 'failed'", as: Int.self
                )
                #expect(failures == 0)
            }
        }
    }
}
