import EntityModel
import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// An online migration followed by an online rollback gives back every value exactly, NULLs
/// included, as the archive promises: the archive entries the way up wrote in the shadow travel
/// with the swapped tables, and the way down restores them in its own shadow.
@Suite("Online migrations rolled back")
struct OnlineRunRollbackTests {
    @Test(arguments: [("v2", "v3", UInt64(1)), ("v2", "v3", UInt64(2)), ("v1", "v2", UInt64(3)), ("v1", "v3", UInt64(4))])
    func anOnlineRollbackGivesBackEveryValue(from: String, to: String, seed: UInt64) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            try lifecycle.create(try tenant("acme"), version: from, on: connection)
            try connection.loadRecipes(tenants: ["acme"], version: from, recipes: 30)
            let version = try #require(try recipesFamily().version(named: from))
            // Generated rows on top: NULLs in every optional column, names that recur with other
            // units, Meat and Fish recipes.
            var data = TenantWorkload(version: version, schema: "tenant_acme", seed: seed)
            try data.run(400, on: connection)
            let before = try tenantContents(schema: "tenant_acme", version: version, on: connection).filter { $0.key != "_tm_archive" }

            var migrator = try makeRecipesMigrator(conninfo)
            migrator.settings.online.batchRows = 25
            let up = try await migrator.migrate(tenant: "acme", .migrate(to: to, online: .on))
            #expect(up.outcome == .migrated && up.online?.phase == .done)
            let down = try await migrator.migrate(tenant: "acme", .rollback(to: from, online: .on))
            #expect(down.outcome == .migrated && down.online?.phase == .done)

            let after = try tenantContents(schema: "tenant_acme", version: version, on: connection).filter { $0.key != "_tm_archive" }
            for table in before.keys.sorted() {
                let (a, b) = (before[table] ?? [], after[table] ?? [])
                let difference = zip(a, b).first { $0 != $1 }.map { "before \($0), after \($1)" } ?? "in the number of rows (\(a.count) before, \(b.count) after)"
                #expect(a == b, "\(from) → \(to) → \(from), \(table): first difference \(difference)")
            }
            #expect(try connection.tenantVersions()["acme"]?.version == from)
        }
    }
}
