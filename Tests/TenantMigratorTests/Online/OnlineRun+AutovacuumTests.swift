import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Autovacuum, drawn by the rows an online run just copied, holds the shadow's tables and makes the
/// run's later locks wait (the cutover lost 4 lock races to it in `tenant-migrate-bench online` at
/// 1,000,000 rows, v3 → v2: writes waited 1.2 s). The run builds the shadow's tables with
/// autovacuum off (it analyzes them itself) and turns it back on in the cutover: a tenant's tables
/// are never left without it.
@Suite("Online runs: autovacuum on the shadow", .serialized)
struct OnlineRunAutovacuumTests {
    /// The tables of `schema` (their names) that have autovacuum off, on the table or its TOAST
    /// table, and those whose TOAST table does not have it off; the online run's own bookkeeping
    /// (change log, state) is left out.
    static func autovacuum(in schema: String, on connection: Connection) throws -> (off: Set<String>, toastOn: Set<String>, all: Set<String>) {
        let rows = try connection.rows("""
            SELECT c.relname::text,
                   (coalesce(c.reloptions, '{}') && ARRAY['autovacuum_enabled=false'] OR coalesce(t.reloptions, '{}') && ARRAY['autovacuum_enabled=false'])::text,
                   (t.oid IS NOT NULL AND NOT coalesce(t.reloptions, '{}') && ARRAY['autovacuum_enabled=false'])::text
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            LEFT JOIN pg_catalog.pg_class t ON t.oid = c.reltoastrelid
            WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND c.relname NOT IN ('_tm_change_log', '_tm_online_state')
            """, [schema])
        let named = rows.map { (name: $0[0]!, off: $0[1] == "true", toastOn: $0[2] == "true") }
        return (Set(named.filter(\.off).map(\.name)), Set(named.filter(\.toastOn).map(\.name)), Set(named.map(\.name)))
    }

    @Test(arguments: [("v2", "v3"), ("v3", "v2")])
    func theShadowIsBuiltWithoutAutovacuumAndTheTenantKeepsIt(from: String, to: String) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try recipesTenant("online", version: "v2", recipes: 30, conninfo)
            var migrator = try makeRecipesMigrator(conninfo)
            if from == "v3" { _ = try await migrator.migrate(tenant: "online", .migrate(to: "v3")) }
            let oid = try connection.scalar("SELECT oid::int8 FROM pg_catalog.pg_namespace WHERE nspname = 'tenant_online'", as: Int64.self)
            let shadow = "_tm_online_\(oid)"
            let built = Locked<(off: Set<String>, toastOn: Set<String>, all: Set<String>)?>(nil)
            migrator.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .built else { return }
                let inspector = try Connection(conninfo)
                let found = try Self.autovacuum(in: shadow, on: inspector)
                built.withLock { $0 = found }
            }
            let result = try await migrator.migrate(tenant: "online", MigrationRequest(.move, to: to, online: .on))
            #expect(result.outcome == .migrated)
            #expect(result.online?.mode == "shadow")

            // While the run built them, every table of the shadow (the archive's and the run's own
            // records of keys and rows made per key included) had it off.
            let shadowState = try #require(built.value)
            #expect(shadowState.all.contains("_tm_archive"), "\(shadowState.all)")
            #expect(shadowState.all.count > 2, "\(shadowState.all)")
            #expect(shadowState.off == shadowState.all, "autovacuum on in the shadow: \(shadowState.all.subtracting(shadowState.off).sorted())")
            #expect(shadowState.toastOn.isEmpty, "autovacuum on for the TOAST table of \(shadowState.toastOn.sorted())")

            // After the cutover, no table of the tenant has it off, and the shadow is gone.
            let after = try Self.autovacuum(in: "tenant_online", on: connection)
            #expect(after.all.count > 2)
            #expect(after.off.isEmpty, "autovacuum left off on \(after.off.sorted())")
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_namespace WHERE nspname = $1", [shadow], as: Int.self) == 0)
            let options = try connection.scalar("""
                SELECT count(*)::int FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                LEFT JOIN pg_catalog.pg_class t ON t.oid = c.reltoastrelid
                WHERE n.nspname = 'tenant_online' AND (c.reloptions IS NOT NULL OR t.reloptions IS NOT NULL)
                """, as: Int.self)
            #expect(options == 0, "a table of the tenant kept storage options")
        }
    }

    /// A run that dies in its cutover, after the swap (rolled back with it), leaves the tenant's
    /// tables as they were, with autovacuum; the rerun drops the shadow left behind and ends with
    /// no table of the tenant without it.
    @Test func aRunThatDiesInItsCutoverAndItsRerunLeaveAutovacuumOn() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try recipesTenant("online", version: "v2", recipes: 30, conninfo)
            let oid = try connection.scalar("SELECT oid::int8 FROM pg_catalog.pg_namespace WHERE nspname = 'tenant_online'", as: Int64.self)
            let shadow = "_tm_online_\(oid)"
            var migrator = try makeRecipesMigrator(conninfo)
            let terminated = Locked(false)
            migrator.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .cutoverSwapped, terminated.withLock({ done in defer { done = true }; return !done }) else { return }
                _ = try Connection(conninfo).execute("SELECT pg_terminate_backend($1)", [checkpoint.backendPID])
            }
            await #expect(throws: (any Error).self) {
                _ = try await migrator.migrate(tenant: "online", .migrate(to: "v3", online: .on))
            }
            #expect(terminated.value)
            #expect(try connection.tenantVersions()["online"]?.version == "v2")
            let crashed = try Self.autovacuum(in: "tenant_online", on: connection)
            #expect(crashed.all == ["recipe", "recipe_ingredient"], "\(crashed.all)")
            #expect(crashed.off.isEmpty, "autovacuum off on \(crashed.off.sorted()) after the crash")
            // What is left is the shadow, with autovacuum off, inert until the rerun drops it.
            let left = try Self.autovacuum(in: shadow, on: connection)
            #expect(!left.off.isEmpty && left.off == left.all, "\(left)")

            let rerun = try await makeRecipesMigrator(conninfo).migrate(tenant: "online", .migrate(to: "v3", online: .on))
            #expect(rerun.outcome == .migrated)
            let after = try Self.autovacuum(in: "tenant_online", on: connection)
            #expect(after.all.count > 2)
            #expect(after.off.isEmpty, "autovacuum left off on \(after.off.sorted())")
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_namespace WHERE nspname = $1", [shadow], as: Int.self) == 0)
        }
    }
}
