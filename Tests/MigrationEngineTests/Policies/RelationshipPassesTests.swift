import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A fleet run probes a policy's relationship pass once: the tenants after the first skip the
/// cursor of a policy that keeps the default pass, and still run every pass a policy implements.
@Suite("Relationship passes are learned once per fleet run")
struct RelationshipPassesTests {
    /// How many statements each tenant sent that match `matches`, from the statements logged at debug level.
    static func count(in store: RecordingLogHandler.Store, _ matches: (String) -> Bool) -> [String: Int] {
        var byTenant: [String: Int] = [:]
        for entry in store.entries where entry.level == .debug && matches(entry.message) {
            guard let tenant = entry.metadata["tenant"].map({ "\($0)" }) else { continue }
            byTenant[tenant, default: 0] += 1
        }
        return byTenant
    }

    @Test func tenantsAfterTheFirstSkipAnIdleRelationshipPass() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (logger, store) = RecordingLogHandler.logger(level: .debug)
            let migrator = try makeRecipesMigrator(conninfo, logger: logger)
            let names = ["a", "b", "c", "d"]
            for name in names { try await migrator.createTenant(name, version: "v2") }
            let connection = try Connection(conninfo)
            try connection.loadRecipes(tenants: names, version: "v2", recipes: 20)
            store.removeAll()

            let report = try await migrator.migrateAll(to: "v3", jobs: 1)
            #expect(report.migrated == names.count)
            // Both Recipes policies keep the default pass. Each tenant reads each instance pass's
            // rows by one query (fewer than a batch: no cursor). The first probes both relationship
            // passes with one query each: the ingredient policy's finds a row, and a cursor over
            // the rest is declared before the policy sees it (and closed unread); Entrée's finds
            // none (its instance pass rewrote every Meat and Fish row), so it stays unknown and
            // the others probe it again, alone.
            let cursors = Self.count(in: store) { $0.hasPrefix("DECLARE ") }
            let instancePasses = Self.count(in: store) { $0.hasPrefix("SELECT source.id") && $0.hasSuffix(" LIMIT 5000") }
            let probes = Self.count(in: store) { $0.hasPrefix("SELECT source.id") && $0.hasSuffix(" LIMIT 1") }
            #expect(cursors == ["a": 1], "\(cursors)")
            #expect(instancePasses == ["a": 2, "b": 2, "c": 2, "d": 2], "\(instancePasses)")
            #expect(probes == ["a": 2, "b": 1, "c": 1, "d": 1], "\(probes)")
            for name in names { #expect(try await verifyClean(migrator, name)) }
            // The data is what the probe would have left: every ingredient linked, Meat and Fish gone.
            for name in names {
                #expect(try connection.scalar("SELECT count(*)::int FROM tenant_\(name).recipe_ingredient WHERE ingredient_id IS NULL", as: Int.self) == 0)
                #expect(try connection.scalar("SELECT count(*)::int FROM tenant_\(name).recipe WHERE type IN ('Meat', 'Fish')", as: Int.self) == 0)
            }
        }
    }

    @Test func aPolicyWithItsOwnPassRunsItOnEveryRowOfEveryTenant() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, recorder) = try RecordingIngredientPolicy.migrator(conninfo)
            let names = ["a", "b", "c"]
            for name in names { try await migrator.createTenant(name, version: "v2") }
            let connection = try Connection(conninfo)
            try connection.loadRecipes(tenants: names, version: "v2", recipes: 10)

            let report = try await migrator.migrateAll(to: "v3", jobs: 1)
            #expect(report.migrated == names.count)
            // 10 recipes × 3 ingredients in each of 3 tenants, each row given to both passes.
            #expect(recorder.value.instances.count == 90)
            #expect(recorder.value.relationships.count == 90)
            #expect(recorder.value.stages.filter { $0 == "endRelationshipCreation" }.count == 3)
        }
    }
}
