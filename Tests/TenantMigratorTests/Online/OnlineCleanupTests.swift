import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// What a run that stopped before its cutover left (inert triggers, a private schema) goes with
/// the next migration of the tenant, offline too, or with `online cleanup`.
@Suite("Online cleanup")
struct OnlineCleanupTests {
    /// Runs an online v1 → v2 of `acme` whose connection is terminated at the first copy batch.
    func crashedRun(_ conninfo: String) async throws {
        var migrator = try makeRecipesMigrator(conninfo)
        migrator.settings.online.batchRows = 10
        let done = Locked(false)
        migrator.settings.online.checkpoint = { checkpoint in
            guard checkpoint.phase == .copying, done.withLock({ value in defer { value = true }; return !value }) else { return }
            _ = try Connection(conninfo).execute("SELECT pg_terminate_backend($1)", [checkpoint.backendPID])
        }
        await #expect(throws: (any Error).self) { _ = try await migrator.migrate(tenant: "acme", .migrate(to: "v2", online: .on)) }
    }

    @Test func anOfflineMigrationRemovesWhatAStoppedOnlineRunLeft() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await AppTenant.with(conninfo, at: "v1") { tenant in
                try await crashedRun(conninfo)
                #expect(try tenant.loggedChanges() != nil, "the crashed run left its log")
                let result = try await makeRecipesMigrator(conninfo).migrate(tenant: "acme", .migrate(to: "v2"))
                #expect(result.outcome == .migrated)
                #expect(result.online == nil)
                try tenant.expectNoLeftovers()
                #expect(try tenant.loggedChanges() == nil)
            }
        }
    }

    @Test func onlineCleanupRemovesWhatAStoppedRunLeft() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await AppTenant.with(conninfo, at: "v1") { tenant in
                let before = try tenant.contents(at: "v1")
                try await crashedRun(conninfo)
                let output = try await TenantMigrateExecutable.run(["online", "cleanup", "--json"], database: conninfo,
                                                                   migrations: URL(fileURLWithPath: migrationsDirectory))
                #expect(output.status == 0, "\(output.stderr)")
                let results = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: String]]
                #expect(results == [["tenant": "acme", "outcome": "removed"]])
                try tenant.expectNoLeftovers()
                try tenant.expectUsable(at: "v1", rows: before)
                let again = try await TenantMigrateExecutable.run(["online", "cleanup"], database: conninfo, migrations: URL(fileURLWithPath: migrationsDirectory))
                #expect(again.stdout.contains("1 tenant checked, 0 cleaned up"), "\(again.stdout)")
            }
        }
    }
}
