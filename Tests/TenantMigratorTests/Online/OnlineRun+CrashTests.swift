import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// An online run stopped at each phase, by `kill -9` of the runner's process or by
/// `pg_terminate_backend` of its connection: the tenant stays at its old version with all its rows,
/// the app sees nothing of the run, and running the same command again completes. The phases are
/// reached by checkpoints (`--online-pause-at` for the process), never by timing.
@Suite("Online runs that crash", .serialized)
struct OnlineRunCrashTests {
    /// `kill -9` of `tenant-migrate migrate --online` paused at `phase` (v2 → v3 and back).
    @Test(.enabled(if: TenantMigrateExecutable.url != nil, "needs the tenant-migrate executable beside the test bundle"),
          arguments: [("copying", "v2", "v3"), ("catching-up", "v2", "v3"), ("cutover-locked", "v2", "v3"), ("cutover-swapped", "v2", "v3"),
                      ("copying", "v3", "v2"), ("catching-up", "v3", "v2"), ("cutover-locked", "v3", "v2"), ("cutover-swapped", "v3", "v2")])
    func killedRunnerLeavesTheOldVersion(phase: String, from: String, to: String) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await AppTenant.with(conninfo, at: from) { tenant in
                let before = try tenant.contents(at: from)
                let verb = to == "v3" ? "migrate" : "rollback"
                let arguments = [verb, "--tenant", "acme", "--to", to, "--online", "--database-url", conninfo, "--migrations", migrationsDirectory]
                let running = try TenantMigrateExecutable.start(arguments + ["--online-pause-at", phase])
                var backend: Int32?
                let paused = try await waitUntil(timeout: .seconds(120)) {
                    let text = try running.errorOutputSoFar()
                    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("online: paused at \(phase)") }) else { return false }
                    backend = Int32(line.split(separator: " ").last!.dropLast())
                    return true
                }
                let stderr = try running.errorOutputSoFar()
                #expect(paused, "stderr: \(stderr)")
                kill(running.process.processIdentifier, SIGKILL)
                #expect(try await waitUntil { !running.process.isRunning })
                // The server notices the lost client and rolls its transaction back.
                #expect(try await waitUntil(timeout: .seconds(60)) {
                    try tenant.admin.scalar("SELECT count(*)::int FROM pg_stat_activity WHERE pid = $1", [backend ?? 0], as: Int.self) == 0
                })

                try tenant.expectUsable(at: from, rows: before)
                let again = try await TenantMigrateExecutable.run(arguments)
                #expect(again.status == 0, "stdout: \(again.stdout)\nstderr: \(again.stderr)")
                #expect(try tenant.recorded()?.version == to)
                try tenant.expectNoLeftovers()
            }
        }
    }

    /// `pg_terminate_backend` of the runner's connection at `phase` (v1 → v2 in a shadow; v2 → v3
    /// with the family's Swift policies, row-local, in a shadow too).
    @Test(arguments: [OnlinePhase.prepared, .copying, .built, .catchingUp, .cutoverLocked, .cutoverSwapped].flatMap { [($0, "v2"), ($0, "v3")] })
    func terminatedBackendLeavesTheOldVersion(phase: OnlinePhase, to: String) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let from = to == "v2" ? "v1" : "v2"
            try await AppTenant.with(conninfo, at: from) { tenant in
                let before = try tenant.contents(at: from)
                var migrator = try makeRecipesMigrator(conninfo)
                migrator.settings.online.batchRows = 50
                let terminated = Locked(false)
                migrator.settings.online.checkpoint = { checkpoint in
                    guard checkpoint.phase == phase, terminated.withLock({ done in defer { done = true }; return !done }) else { return }
                    let killer = try Connection(conninfo)
                    _ = try killer.execute("SELECT pg_terminate_backend($1)", [checkpoint.backendPID])
                }
                await #expect(throws: (any Error).self) {
                    _ = try await migrator.migrate(tenant: "acme", .migrate(to: to, online: .on))
                }
                #expect(terminated.value)

                try tenant.expectUsable(at: from, rows: before)
                var again = try makeRecipesMigrator(conninfo)
                again.settings.online.batchRows = 50
                let result = try await again.migrate(tenant: "acme", .migrate(to: to, online: .on))
                #expect(result.outcome == .migrated)
                #expect(try tenant.recorded()?.version == to)
                try tenant.expectNoLeftovers()
            }
        }
    }
}
