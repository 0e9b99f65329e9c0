import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// What judging a policy's SQL costs (``PolicyStatementTrust``): a statement text is judged once
/// per step and tenant, so a statement run once per row adds a few round trips to the step
/// whatever the number of rows, and the runtime's own statements (the Recipes policies send no
/// other) add none.
@Suite("What judging a policy's SQL costs")
struct PolicyStatementTrustTests {
    /// RecipeTypeToEntree, which also runs one parameterised statement per source row, judged
    /// or not, and notes the connection's round trips from `begin` to `end`.
    struct CountingPolicy: MigrationPolicy {
        let judged: Bool
        let roundTrips: Locked<[Int]>
        var transforms: [String] { ["type"] }

        func begin(_ context: PolicyContext) throws {
            roundTrips.withLock { $0.append(-context.connection.statistics.roundTrips) }
        }

        func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
            let sql = "SELECT $1::text || ' ' || r.name FROM \(try context.sourceTable(of: "Recipe")) AS r WHERE r.id = $2"
            let connection = context.connection
            if judged {
                try connection.execute(unsafeSQL: sql, [try source.string("type"), source.id])
            } else {
                try connection.judging(by: nil) { _ = try connection.execute(unsafeSQL: sql, [try source.string("type"), source.id]) }
            }
            try RecipeTypeToEntree().createDestinationInstances(for: source, in: context)
        }

        func end(_ context: PolicyContext) throws {
            roundTrips.withLock { $0[$0.count - 1] += context.connection.statistics.roundTrips }
        }
    }

    /// The round trips the policy's stages cost in a tenant of `recipes` recipes (two in five are
    /// Meat or Fish, the policy's rows), judged or not.
    static func roundTrips(_ conninfo: String, recipes: Int, judged: Bool) async throws -> Int {
        let name = "t\(recipes)\(judged ? "j" : "u")"
        let counted = Locked<[Int]>([])
        var policies = RecipesPolicies.registry
        policies.register("RecipeTypeToEntree") { CountingPolicy(judged: judged, roundTrips: counted) }
        let migrator = try makeRecipesMigrator(conninfo, policies: policies)
        _ = try await migrator.createTenant(name, version: "v2")
        try Connection(conninfo).loadRecipes(tenants: [name], version: "v2", recipes: recipes)
        #expect(try await migrator.migrate(tenant: name, .migrate(to: "v3")).outcome == .migrated)
        return try #require(counted.withLock { $0.first })
    }

    /// 20 rows or 200: the judgement adds the same few round trips (prepare and describe the
    /// statement, resolve it in a rolled-back savepoint), not one per row.
    @Test func aStatementRunOncePerRowIsJudgedOnce() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            var added: [Int] = []
            for recipes in [50, 500] {
                let judged = try await Self.roundTrips(conninfo, recipes: recipes, judged: true)
                let unjudged = try await Self.roundTrips(conninfo, recipes: recipes, judged: false)
                added.append(judged - unjudged)
            }
            #expect(added[0] == added[1], "round trips added by judging, for 20 and 200 rows: \(added)")
            #expect((1...4).contains(added[0]), "round trips added by judging: \(added)")
        }
    }

    /// The Recipes policies send no SQL of their own: their step asks PostgreSQL nothing more (no
    /// probe function in the statements the migrator logs). A policy that sends one statement per
    /// row (20 rows) has it judged once.
    @Test func theRecipesPoliciesCostNoJudgementAndAStatementPerRowOne() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            for (name, perRow) in [("real", false), ("perrow", true)] {
                let (logger, store) = RecordingLogHandler.logger(level: .debug)
                var policies = RecipesPolicies.registry
                if perRow { policies.register("RecipeTypeToEntree") { CountingPolicy(judged: true, roundTrips: Locked([])) } }
                let migrator = try makeRecipesMigrator(conninfo, policies: policies, logger: logger)
                _ = try await migrator.createTenant(name, version: "v2")
                try Connection(conninfo).loadRecipes(tenants: [name], version: "v2", recipes: 50)
                store.removeAll()
                #expect(try await migrator.migrate(tenant: name, .migrate(to: "v3")).outcome == .migrated)
                let probes = store.entries.filter { $0.message.contains("CREATE FUNCTION pg_temp.\"#policy statement\"") }.count
                #expect(probes == (perRow ? 1 : 0), "\(name): \(probes) statements judged")
                #expect(store.entries.contains { $0.message.contains("FETCH") || $0.message.contains("recipe") }, "the migrator's statements were not logged")
            }
        }
    }

    /// RecipeTypeToEntree, which also sends `statements` in `begin`.
    struct SendingPolicy: MigrationPolicy {
        let statements: @Sendable (PolicyContext) throws -> Void
        var transforms: [String] { ["type"] }

        func begin(_ context: PolicyContext) throws { try statements(context) }

        func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
            try RecipeTypeToEntree().createDestinationInstances(for: source, in: context)
        }
    }

    /// Migrates a new tenant `name` of 10 recipes to v3 with ``SendingPolicy``: nil, or the error.
    static func migrate(_ conninfo: String, _ name: String, _ statements: @escaping @Sendable (PolicyContext) throws -> Void) async throws -> String? {
        var policies = RecipesPolicies.registry
        policies.register("RecipeTypeToEntree") { SendingPolicy(statements: statements) }
        let migrator = try makeRecipesMigrator(conninfo, policies: policies)
        _ = try await migrator.createTenant(name, version: "v2")
        try Connection(conninfo).loadRecipes(tenants: [name], version: "v2", recipes: 10)
        do {
            _ = try await migrator.migrate(tenant: name, .migrate(to: "v3"))
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Savepoints, SET, a cursor (its query judged), FETCH, CLOSE and a script of one judgeable
    /// statement run; what PostgreSQL resolves only when it runs it (DDL, DO, SELECT INTO) is
    /// refused before it runs, naming the mapping and the policy (42501), and the tenant stays.
    @Test func whatCannotBeJudgedIsRefused() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let error = try await Self.migrate(conninfo, "allowed") { context in
                let connection = context.connection
                let recipe = try context.sourceTable(of: "Recipe")
                try connection.savepoint { _ = try $0.execute(unsafeSQL: "SELECT count(*) FROM \(recipe)") }
                try connection.execute(unsafeSQL: "SET LOCAL work_mem = '8MB'")
                try connection.execute(unsafeSQL: "DECLARE recipes NO SCROLL CURSOR FOR SELECT id FROM \(recipe) ORDER BY id")
                guard try connection.execute(unsafeSQL: "FETCH 2 FROM recipes").rowCount == 2 else { throw TestFailure("FETCH read no row") }
                try connection.execute(unsafeSQL: "CLOSE recipes")
                try connection.script(unsafeSQL: "UPDATE \(recipe) SET servings = servings WHERE false")
            }
            #expect(error == nil, "\(error ?? "")")
            let admin = try Connection(conninfo)
            for (index, statement) in ["CREATE TEMPORARY TABLE scratch (id bigint)", "DO $$BEGIN PERFORM 1; END$$", "SELECT 1 INTO TEMPORARY scratch",
                                       "SELECT 1; CREATE TEMPORARY TABLE scratch (id bigint)"].enumerated() {
                let message = try await Self.migrate(conninfo, "refused\(index)") { context in
                    if statement.contains(";") { try context.connection.script(unsafeSQL: statement) } else { try context.execute(statement) }
                } ?? "no error"
                for part in ["MeatAndFishToEntree", "RecipeTypeToEntree", "resolves only when it runs it", "42501"] {
                    #expect(message.contains(part), "\(statement): \(message)")
                }
                #expect(try admin.tenantVersions()["refused\(index)"]?.version == "v2")
            }
        }
    }
}
