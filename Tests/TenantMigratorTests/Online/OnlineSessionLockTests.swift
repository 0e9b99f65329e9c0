import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Two runners never migrate one tenant at once: an online run holds the tenant's lease for its
/// whole length, and every other runner, online or offline, waits for it after locking the
/// tenant's catalog row, beyond its own lock timeouts, then finds the tenant where it was left.
@Suite("Online session lock")
struct OnlineSessionLockTests {
    @Test func noOtherRunnerMigratesTheTenantWhileAnOnlineRunHoldsIt() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try recipesTenant("acme", recipes: 20, conninfo)
            let paused = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0)
            var first = try makeRecipesMigrator(conninfo)
            first.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .built else { return }
                paused.signal()
                resume.wait()
            }
            let running = Task { try await first.migrate(tenant: "acme", .migrate(to: "v2", online: .on)) }
            await withCheckedContinuation { continuation in DispatchQueue.global().async { paused.wait(); continuation.resume() } }

            // Other runners, offline and online, with lock timeouts and attempts that would have
            // given up long before the first run ends: they wait for it, however long it takes.
            let finished = Locked(0)
            let others = try [OnlineMode.off, .on].map { online in
                let other = try makeRecipesMigrator(conninfo, lockTimeout: .milliseconds(200), maxAttempts: 2)
                return Task {
                    defer { finished.withLock { $0 += 1 } }
                    return try await other.migrate(tenant: "acme", .migrate(to: "v2", online: online))
                }
            }
            // Ten times what their two attempts and backoff would take.
            try await Task.sleep(for: .seconds(5))
            #expect(finished.value == 0, "a second runner ended while the online run held the tenant")
            #expect(try connection.tenantVersions()["acme"]?.version == "v1")
            resume.signal()
            let result = try await running.value
            #expect(result.outcome == .migrated)
            for other in others {
                // Each found the tenant where the online run left it.
                #expect(try await other.value.outcome == .alreadyCurrent)
            }
            #expect(try connection.tenantVersions()["acme"]?.version == "v2")
        }
    }
}
