import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Two runners never migrate one tenant at once: an online run holds the tenant's lease for its
/// whole length, and every other runner, online or offline, waits for it after locking the
/// tenant's catalog row.
@Suite("Online session lock")
struct OnlineSessionLockTests {
    @Test func noOtherRunnerMigratesTheTenantWhileAnOnlineRunHoldsIt() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            try lifecycle.create(try tenant("acme"), version: "v1", on: connection)
            try connection.loadRecipes(tenants: ["acme"], recipes: 20)
            let paused = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0)
            var first = try makeRecipesMigrator(conninfo)
            first.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .built else { return }
                paused.signal()
                resume.wait()
            }
            let running = Task { try await first.migrate(tenant: "acme", .migrate(to: "v2", online: .on)) }
            await withCheckedContinuation { continuation in DispatchQueue.global().async { paused.wait(); continuation.resume() } }

            for online in [OnlineMode.off, .on] {
                let other = try makeRecipesMigrator(conninfo, lockTimeout: .milliseconds(200), maxAttempts: 2)
                do {
                    let result = try await other.migrate(tenant: "acme", .migrate(to: "v3", online: online))
                    Issue.record("a second runner (\(online)) migrated the tenant: \(result.outcome)")
                } catch let error as TenantMigrationError {
                    guard case .lockTimeout = error.reason else { Issue.record("\(online): \(error)"); continue }
                }
            }
            #expect(try connection.tenantVersions()["acme"]?.version == "v1")
            resume.signal()
            let result = try await running.value
            #expect(result.outcome == .migrated)
            #expect(try connection.tenantVersions()["acme"]?.version == "v2")
        }
    }
}
