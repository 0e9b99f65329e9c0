import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A tenant's lock is one that only the migrator can take or hold: advisory locks need no
/// privilege and their keys can be guessed, so an app role holding one (shared or exclusive) must
/// neither block a tenant's migrations nor make a dead online run look alive.
@Suite("The tenant lock is the migrator's alone")
struct TenantLockTests {
    /// The advisory key releases before this one took for `tenant`: (hashtext(catalog), hashtext(tenant)).
    static let oldKey = "pg_catalog.hashtext('tenant_migrator'), pg_catalog.hashtext($1)"

    @Test func anAppRoleHoldingTheTenantsAdvisoryKeyBlocksNoMigration() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "acme", "--version", "v1", "--app-role", setup.app.role]) == 0)
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "globex", "--version", "v1"]) == 0)
            try setup.adminConnection().loadRecipes(tenants: ["globex"], version: "v1", recipes: 20)
            // acme's app role has no right on globex, yet may hold any advisory key it likes.
            let app = try setup.app.connect()
            #expect(try app.scalar("SELECT pg_catalog.pg_try_advisory_lock_shared(\(Self.oldKey))", ["globex"], as: Bool.self))
            // The lock that counts is on globex's catalog row, which the app cannot take.
            #expect(OnlineMigrationTests.attempt("SELECT 1 FROM tenant_migrator.tenants WHERE name = 'globex' FOR UPDATE", on: app) == "42501")

            let migrator = try makeRecipesMigrator(setup.migrator.url, lockTimeout: .milliseconds(200), maxAttempts: 2)
            let offline = try await migrator.migrate(tenant: "globex", .migrate(to: "v2"))
            #expect(offline.outcome == .migrated)
            let online = try await migrator.migrate(tenant: "globex", .migrate(to: "v3", online: .on))
            #expect(online.outcome == .migrated)
            #expect(online.online.map { $0.mode != "offline" } == true, "globex ran offline")
            let rollback = try await migrator.migrate(tenant: "globex", .rollback(to: "v2", online: .on))
            #expect(rollback.outcome == .migrated)
            #expect(try await migrator.cleanUpOnlineMigrations(tenant: "globex").map(\.outcome) == [.clean])
            #expect(try setup.adminConnection().scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 'globex'", as: String.self) == "v2")
        }
    }

    /// After the runner's connection is gone, the capture triggers go inert and `online cleanup`
    /// removes them, whoever holds the advisory key the run used to hold.
    @Test func anAppRoleCannotMakeADeadOnlineRunLookAlive() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await setup.recipesTenant(recipes: 20)
            let adminURL = setup.adminURL
            let terminated = Locked(false)
            var migrator = try makeRecipesMigrator(setup.migrator.url, lockTimeout: .milliseconds(200), maxAttempts: 2)
            migrator.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .built, terminated.withLock({ done in defer { done = true }; return !done }) else { return }
                // Waits (up to a minute) until the backend is gone.
                let killer = try Connection(adminURL, logger: quietLogger)
                _ = try killer.execute("SELECT pg_catalog.pg_terminate_backend($1, 60000)", [checkpoint.backendPID])
            }
            await #expect(throws: (any Error).self) { _ = try await migrator.migrate(tenant: "t", .migrate(to: "v3", online: .on)) }
            #expect(terminated.value)
            let oid = try admin.scalar("SELECT oid::int8 FROM pg_namespace WHERE nspname = 'tenant_t'", as: Int64.self)
            let log = "\"_tm_online_\(oid)\"._tm_change_log"
            let logged = try admin.scalar("SELECT count(*)::int FROM \(log)", as: Int.self)

            // One app session holds the key the run held; another writes.
            let holder = try setup.app.connect()
            #expect(try holder.scalar("SELECT pg_catalog.pg_try_advisory_lock(\(Self.oldKey))", ["t"], as: Bool.self))
            let writer = try setup.app.connect()
            try writer.execute("UPDATE tenant_t.recipe SET name = 'written after the crash' WHERE id = (SELECT min(id) FROM tenant_t.recipe)")
            #expect(try admin.scalar("SELECT count(*)::int FROM \(log)", as: Int.self) == logged, "the dead run's capture still logged")

            let cleaner = try makeRecipesMigrator(setup.migrator.url, lockTimeout: .milliseconds(200), maxAttempts: 2)
            #expect(try await cleaner.cleanUpOnlineMigrations(tenant: "t").map(\.outcome) == [.removed])
            #expect(try admin.scalar("SELECT count(*)::int FROM pg_namespace WHERE nspname = $1", ["_tm_online_\(oid)"], as: Int.self) == 0)
        }
    }
}
