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
    @Test(arguments: [("v2", "v3", UInt64(1), RecipesWay.policies), ("v2", "v3", 2, .policies), ("v1", "v2", 3, .policies), ("v1", "v3", 4, .policies)])
    func anOnlineRollbackGivesBackEveryValue(from: String, to: String, seed: UInt64, way: RecipesWay) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, before, _) = try await roundTrip(conninfo, from: from, to: to, seed: seed, way: way)
            let after = try tenantContents(schema: "tenant_acme", version: try recipesFamily().version(named: from)!, on: connection)
            expectSame(before, after.filter { $0.key != "_tm_archive" }, "\(from) → \(to) → \(from)")
        }
    }

    /// Recipes there and back, declarative or with the family's row-local policies (both ways
    /// in a shadow): what the archive keeps (issue 22 makes it keep NULL originals too) comes back
    /// online exactly as offline, archive included.
    @Test(arguments: [("v2", "v3", UInt64(5), RecipesWay.declarative), ("v1", "v3", 6, .declarative), ("v2", "v3", 7, .policies), ("v1", "v3", 8, .policies)])
    func aRoundTripOnlineEndsAsOffline(from: String, to: String, seed: UInt64, way: RecipesWay) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, _, twin) = try await roundTrip(conninfo, from: from, to: to, seed: seed, way: way)
            let version = try recipesFamily().version(named: from)!
            let online = try tenantContents(schema: "tenant_acme", version: version, on: connection)
            expectSame(twin, online, "\(from) → \(to) → \(from), \(way)")
        }
    }

    /// Tenant `acme` at `from` with generated rows, migrated online to `to` and back; and `twin`,
    /// with the same rows, there and back offline. Returns acme's rows before (archive aside) and
    /// twin's after (archive included).
    func roundTrip(_ conninfo: String, from: String, to: String, seed: UInt64, way: RecipesWay) async throws
        -> (Connection, [String: [String]], [String: [String]]) {
        let (connection, lifecycle) = try installedLifecycle(conninfo)
        let version = try #require(try recipesFamily().version(named: from))
        var data = TenantWorkload(version: version, schema: "tenant_acme", seed: seed)
        for name in ["acme", "twin"] {
            try lifecycle.create(try tenant(name), version: from, on: connection)
            try connection.loadRecipes(tenants: [name], version: from, recipes: 30)
        }
        // Generated rows on top: NULLs in every optional column, names that recur with other
        // units, Meat and Fish recipes.
        try data.run(400, on: connection)
        try data.replay(inSchema: "tenant_twin", on: connection)
        let before = try tenantContents(schema: "tenant_acme", version: version, on: connection).filter { $0.key != "_tm_archive" }

        var migrator = try recipesMigrator(conninfo, way)
        migrator.settings.online.batchRows = 25
        let up = try await migrator.migrate(tenant: "acme", .migrate(to: to, online: .on))
        #expect(up.outcome == .migrated && up.online?.phase == .done)
        let down = try await migrator.migrate(tenant: "acme", .rollback(to: from, online: .on))
        #expect(down.outcome == .migrated && down.online?.phase == .done)
        #expect(try connection.tenantVersions()["acme"]?.version == from)
        _ = try await migrator.migrate(tenant: "twin", .migrate(to: to))
        _ = try await migrator.migrate(tenant: "twin", .rollback(to: from))
        return (connection, before, try tenantContents(schema: "tenant_twin", version: version, on: connection))
    }

    func expectSame(_ expected: [String: [String]], _ actual: [String: [String]], _ path: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        for table in Set(expected.keys).union(actual.keys).sorted() {
            let (a, b) = (expected[table] ?? [], actual[table] ?? [])
            let difference = zip(a, b).first { $0 != $1 }.map { "expected \($0), got \($1)" } ?? "in the number of rows (\(a.count) expected, \(b.count))"
            #expect(a == b, "\(path), \(table): first difference \(difference)", sourceLocation: sourceLocation)
        }
    }
}
