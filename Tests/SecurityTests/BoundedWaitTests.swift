import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// A migration never queues in front of application traffic for longer than `lock_timeout`, and
/// never waits without limit itself (docs/Security.md, "Bounded waits").
@Suite("Bounded waits")
struct BoundedWaitTests {
    @Test func theTenantLockWaitIsBoundedByLockTimeoutAndAttempts() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t", "--version", "v1"]) == 0)
            // Another runner holds tenant t's lock: its row in the catalog.
            let holder = try setup.migrator.connect()
            try holder.execute("BEGIN")
            try holder.execute("SELECT 1 FROM tenant_migrator.tenants WHERE name = 't' FOR UPDATE")

            // The runner is a process of its own: its waits are its own, not those of this test
            // process's cooperative pool, which other suites can keep busy for seconds.
            let started = ContinuousClock.now
            let running = try TenantMigrateExecutable.start(
                ["migrate", "--tenant", "t", "--lock-timeout", "1000", "--max-attempts", "2", "--database-url", setup.migrator.url, "--migrations", migrationsDirectory]
            )
            // Two attempts of 1 s plus one backoff of at most 200 ms: about 2.2 s. If the wait were
            // unbounded, the run would end only when the holder lets go, after this wait.
            let ended = try await waitUntil(timeout: .seconds(60)) { !running.process.isRunning }
            try holder.execute("ROLLBACK")
            let output = try await running.finish()
            #expect(ended, "the runner was still waiting for the tenant's lock after \(ContinuousClock.now - started)")
            #expect(output.status != 0)
            #expect(output.stderr.contains("55P03"), "\(output.stderr)")
            let admin = try setup.adminConnection()
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v1")
            #expect(try admin.scalar(
                "SELECT sqlstate FROM tenant_migrator.migration_history WHERE tenant = 't' AND outcome = 'failed'", as: String.self
            ) == "55P03")
        }
    }

    @Test func theMigrationNeverWaitsForOneTableWhileHoldingAnother() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            // v1 → v3 alters recipe first (v1 → v2), then recipe_ingredient (v2 → v3).
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t", "--version", "v1", "--app-role", setup.app.role]) == 0)
            let admin = try setup.adminConnection()
            try admin.loadRecipes(tenants: ["t"], recipes: 20)
            // The app is in the middle of a transaction on recipe_ingredient.
            let busy = try setup.app.connect()
            try busy.execute("BEGIN")
            try busy.execute("UPDATE tenant_t.recipe_ingredient SET quantity = quantity WHERE id = (SELECT min(id) FROM tenant_t.recipe_ingredient)")

            let lockTimeout = 3000
            let (run, done) = background {
                await tenantMigrateError(setup.migrator.url, ["migrate", "--tenant", "t", "--lock-timeout", "\(lockTimeout)", "--max-attempts", "2"])
            }
            // Meanwhile: the migrator must never hold recipe while it waits for a lock (sampled here),
            // and the app's updates of recipe must not queue behind it for long (a second session).
            // On a thread of its own: an update waits for the migrator's locks, and the migrator runs
            // in this process, so blocking a thread of the cooperative pool here could leave it none
            // to go on with (a whole CI run stalled so once).
            let appURL = setup.app.url
            let (updates, _) = background {
                try await onAThreadOfItsOwn { () -> Duration in
                    let app = try Connection(appURL, logger: quietLogger)
                    var longest = Duration.zero
                    while !done.value {
                        let before = ContinuousClock.now
                        try app.execute("UPDATE tenant_t.recipe SET servings = servings WHERE id = (SELECT min(id) FROM tenant_t.recipe)")
                        longest = max(longest, ContinuousClock.now - before)
                        usleep(20_000)
                    }
                    return longest
                }
            }
            // Sampled on a thread of its own: a busy suite can keep the cooperative pool from this
            // test for seconds, and the migrator's waits would pass unseen.
            let migratorRole = setup.migrator.role, adminURL = setup.adminURL
            let (samplesWhileWaiting, heldWhileWaiting) = try await onAThreadOfItsOwn { () -> (Int, [String]) in
                let admin = try Connection(adminURL, logger: quietLogger)
                var samples = 0
                var held: [String] = []
                while !done.value {
                    let waiting = try admin.scalar("""
                        SELECT count(*)::int FROM pg_locks w JOIN pg_stat_activity a ON a.pid = w.pid
                        WHERE NOT w.granted AND a.usename = $1
                        """, [migratorRole], as: Int.self)
                    if waiting > 0 { samples += 1 }
                    held += try admin.column("""
                        SELECT h.mode FROM pg_locks w JOIN pg_locks h ON h.pid = w.pid AND h.granted
                        JOIN pg_stat_activity a ON a.pid = w.pid
                        WHERE NOT w.granted AND a.usename = $1 AND h.locktype = 'relation' AND h.relation = 'tenant_t.recipe'::regclass
                        """, [migratorRole])
                    usleep(10_000)
                }
                return (samples, held)
            }
            let longestStall = try await updates.value
            try busy.execute("ROLLBACK")
            // recipe_ingredient stayed busy throughout: the migration gave up.
            #expect("\(try await run.value.map { "\($0)" } ?? "no error")".contains("55P03"))
            // The sampling saw the migrator waiting (each attempt waits 3 s for recipe_ingredient).
            #expect(samplesWhileWaiting > 0)
            #expect(heldWhileWaiting.isEmpty, "in \(heldWhileWaiting.count) samples the migrator held recipe (\(Set(heldWhileWaiting).sorted())) while waiting for another lock")
            #expect(longestStall < .milliseconds(lockTimeout + 1000), "an app update of recipe stalled \(longestStall)")
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v1")

            // Once the app is done, the same migration goes through.
            #expect(try await runTenantMigrate(setup.migrator.url, ["migrate", "--tenant", "t"]) == 0)
        }
    }

}

/// Runs `body` in a task that sets the returned flag when it ends.
func background<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> (Task<T, any Error>, Locked<Bool>) {
    let flag = Locked(false)
    let task = Task {
        defer { flag.withLock { $0 = true } }
        return try await body()
    }
    return (task, flag)
}
