import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// The `tenant-migrate` executable built next to this test bundle, or nil when it is not there.
let tenantMigrateExecutable = TenantMigrateExecutable.url

/// Ctrl-C, end to end: the real executable, a real SIGINT.
@Suite("tenant-migrate and SIGINT")
struct InterruptExecutableTests {
    @Test(.enabled(if: tenantMigrateExecutable != nil, "needs the tenant-migrate executable beside the test bundle"))
    func sigintStopsTheRunGracefullyAndExits130() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, _, connection) = try await recipesFleet(conninfo, "i", 60, recipes: 20)
            func migratedCount() throws -> Int {
                try connection.scalar("SELECT count(*)::int FROM tenant_migrator.tenants WHERE version = 'v3'")
            }

            let running = try TenantMigrateExecutable.start(
                ["migrate", "--all", "--jobs", "2", "--json", "--database-url", conninfo, "--migrations", migrationsDirectory]
            )
            let process = running.process

            // Watched from a thread of its own, which a busy machine schedules as it does the run
            // (a task of the cooperative pool could wake only after the whole fleet was done).
            let migratedAtInterrupt = try await onAThreadOfItsOwn { () throws -> Int in
                let watcher = try Connection(conninfo)
                let started = ContinuousClock.now
                while ContinuousClock.now - started < .seconds(300) {
                    let migrated = try watcher.scalar("SELECT count(*)::int FROM tenant_migrator.tenants WHERE version = 'v3'", as: Int.self)
                    if migrated >= 5 || !process.isRunning {
                        process.send(SIGINT)
                        return migrated
                    }
                    usleep(5_000)
                }
                return -1
            }
            #expect(migratedAtInterrupt >= 5, "the interrupt was never sent (\(migratedAtInterrupt) tenants migrated)")
            #expect(migratedAtInterrupt < 60, "the run ended before the interrupt; make it longer")
            #expect(try await waitUntil { !process.isRunning })
            let output = try await running.finish()
            let (stdout, stderr) = (Data(output.stdout.utf8), output.stderr)

            #expect(output.terminatingSignal == nil, "the run was killed by signal \(output.terminatingSignal ?? 0) rather than exiting")
            #expect(output.status == 130, "stderr: \(stderr)")
            #expect(stderr.contains("interrupted: no new tenants start"))
            let report = try JSONSerialization.jsonObject(with: stdout) as? [String: Any]
            let summary = report?["summary"] as? [String: Int]
            #expect(report?["interrupted"] as? Bool == true)
            #expect(summary?["total"] == 60)
            #expect(summary?["failed"] == 0)
            let migrated = summary?["migrated"] ?? -1
            #expect(migrated >= 5 && migrated < 60, "migrated \(migrated)")
            #expect(summary?["notStarted"] == 60 - migrated)

            // The catalog agrees, and no tenant is in between.
            #expect(try migratedCount() == migrated)
            #expect(try connection.tenantVersions().values.allSatisfy { ($0.version == "v1" || $0.version == "v3") && $0.state == "ready" })
            let drifted = try await migrator.verify().filter { !$0.isClean }
            #expect(drifted.isEmpty, "drift: \(drifted.map(\.tenant))")
        }
    }
}
