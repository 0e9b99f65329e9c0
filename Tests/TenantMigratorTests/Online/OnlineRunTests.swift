import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

@Suite("Online runs", .serialized)
struct OnlineRunTests {
    /// Two Recipes tenants, `online` and `twin`, with the same rows at `version` (v3 is reached
    /// through an offline v2 → v3, so the archive holds that step's entries).
    func twins(_ conninfo: String, at version: String, way: RecipesWay = .policies, recipes: Int = 40) async throws -> (Connection, TenantMigrator) {
        let (connection, lifecycle) = try installedLifecycle(conninfo)
        let start = version == "v1" ? "v1" : "v2"
        for name in ["online", "twin"] {
            try lifecycle.create(try tenant(name), version: start, on: connection)
            try connection.loadRecipes(tenants: [name], version: start, recipes: recipes)
        }
        let migrator = try recipesMigrator(conninfo, way)
        if version == "v3" {
            for name in ["online", "twin"] { _ = try await migrator.migrate(tenant: name, .migrate(to: "v3")) }
        }
        return (connection, migrator)
    }

    /// While an online migration runs, an app inserts, updates and deletes rows of every table
    /// (in the background, and in bursts at the copy, the build and the catch-up); afterwards the
    /// tenant holds exactly what an offline migration of the final data gives its twin, archive included.
    @Test(arguments: [("v1", "v2", RecipesWay.policies), ("v2", "v1", .policies), ("v3", "v2", .policies), ("v2", "v3", .policies), ("v1", "v3", .policies),
                      ("v2", "v3", .declarative), ("v1", "v3", .declarative), ("v3", "v2", .declarative)])
    func concurrentChangesEndAsAnOfflineMigration(from: String, to: String, way: RecipesWay) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, baseMigrator) = try await twins(conninfo, at: from, way: way)
            let family = try recipesFamily()
            let workload = BackgroundWorkload(
                TenantWorkload(version: family.version(named: from)!, schema: "tenant_online", seed: UInt64(from.hashValue & 0xffff) ^ 0x5eed), conninfo: conninfo
            )
            let seen = Locked<Set<OnlinePhase>>([])
            var migrator = baseMigrator
            migrator.settings.online.batchRows = 7
            migrator.settings.online.cutoverChanges = 1_000_000
            migrator.settings.online.checkpoint = workload.changingInEachPhase(25, seen: seen)
            workload.resume()
            let result = try await migrator.migrate(tenant: "online", MigrationRequest(.move, to: to, allowDestructive: true, online: .on))
            workload.stop()
            let changes = try workload.result()
            #expect(result.outcome == .migrated)
            // The Recipes policies are row-local: v2 → v3 runs in a shadow with them too.
            if from != "v3" { #expect(result.online?.mode == "shadow", "\(result.online?.reason ?? "")") }
            #expect(seen.value.isSuperset(of: [.prepared, .copying, .built, .catchingUp, .cutoverLocked, .cutoverSwapped, .done]))
            #expect(changes.applied.count >= 75, "the app's changes: \(changes.applied.count) kept, \(changes.refused) refused")
            #expect((result.online?.changesCaughtUp ?? 0) > 0)

            try changes.replay(inSchema: "tenant_twin", on: connection)
            _ = try await baseMigrator.migrate(tenant: "twin", MigrationRequest(.move, to: to, allowDestructive: true))
            let destination = family.version(named: to)!
            // Rows made per key (declaratively or by a policy's lookups) too have offline's ids.
            let online = try tenantContents(schema: "tenant_online", version: destination, on: connection)
            let twin = try tenantContents(schema: "tenant_twin", version: destination, on: connection)
            expectSameContents(online, twin)
            try expectNoLeftovers(on: connection, schema: "tenant_online")
            #expect(try connection.tenantVersions()["online"]?.version == to)
        }
    }

    /// Nothing of the run is left but the retired tables: no capture trigger, no private schema.
    func expectNoLeftovers(on connection: Connection, schema: String) throws {
        let triggers = try connection.column("SELECT tgname::text FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND NOT t.tgisinternal", [schema], as: String.self)
        #expect(triggers.isEmpty, "triggers left: \(triggers)")
        let schemas = try connection.userSchemas().filter { $0.hasPrefix("_tm_online_") || $0.hasPrefix("_tm_delta_") }
        #expect(schemas.isEmpty, "schemas left: \(schemas)")
    }
}
