import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// The judge of a Swift policy's and a step hook's own SQL (`PolicyStatementTrust`: the statement
/// as the body of a `pg_temp` function with `BEGIN ATOMIC`, in a savepoint rolled back) on a Citus
/// coordinator, over a tenant's distributed schema (docs/Security.md, "SQL of the policies").
@Suite("Citus: the policies' and hooks' SQL judged", .serialized, .enabled(if: citusURL != nil, "TEST_CITUS_URL is not set: run scripts/citus-cluster.sh start and export the URL it prints"))
struct CitusPolicySQLTests {
    /// RecipeTypeToEntree, which also runs `sql` (`{schema}` for the tenant's schema) in `begin`.
    struct SQLRunningPolicy: MigrationPolicy {
        let sql: String
        var transforms: [String] { ["type"] }
        var locality: PolicyLocality { .readsOtherRows("it runs SQL of its own") }

        func begin(_ context: PolicyContext) throws {
            try context.execute(sql.replacingOccurrences(of: "{schema}", with: context.connection.quoteIdentifier(context.schema)))
        }

        func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
            try RecipeTypeToEntree().createDestinationInstances(for: source, in: context)
        }
    }

    /// The administrator's `code_for(bigint)`, a policy that calls it with an `integer` and a
    /// `didMigrate` hook that analyzes the tenant's distributed table: judged on the coordinator,
    /// they run and the tenant migrates. Then the attacker's better-matching `code_for(integer)`:
    /// the policy's statement is refused (42501) naming it and its owner, and the tenant stays at v2.
    @Test func aPolicysSQLIsJudgedOnTheCoordinatorAndAPlantedOverloadRefused() async throws {
        try await CitusFixture.with { fixture in
            let tag = fixture.prefix
            let function = "\(tag)code_for", attacker = "\(tag)attacker"
            let admin = fixture.connection
            try admin.execute(unsafeSQL: "CREATE FUNCTION public.\(function)(bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'C' || $1$$")
            defer {
                _ = try? admin.execute(unsafeSQL: "DROP FUNCTION IF EXISTS public.\(function)(bigint), public.\(function)(integer)")
                _ = try? admin.execute(unsafeSQL: "DROP ROLE IF EXISTS \(attacker)")
            }
            let analyzed = Locked(0)
            var policies = RecipesPolicies.registry
            policies.register("RecipeTypeToEntree") { SQLRunningPolicy(sql: "SELECT public.\(function)(pg_catalog.count(*)::int) FROM {schema}.recipe") }
            policies.registerHooks(family: "Recipes", from: "v2", to: "v3", StepHooks(didMigrate: { connection, schema in
                try connection.execute("ANALYZE \(table: "recipe")", schema: schema)
                analyzed.withLock { $0 += 1 }
            }))
            let migrator = try makeRecipesMigrator(fixture.conninfo, policies: policies, catalog: fixture.catalog, logger: quietLogger)
            let tenants = fixture.names(2)
            for tenant in tenants { _ = try await migrator.createTenant(tenant, version: "v2") }
            try admin.loadRecipes(tenants: tenants, version: "v2", recipes: 10)

            let result = try await migrator.migrate(tenant: tenants[0], to: "v3")
            #expect(result.outcome == .migrated)
            #expect(analyzed.value == 1)

            // The attacker's better match for an integer.
            try admin.execute(unsafeSQL: "CREATE ROLE \(attacker) NOLOGIN")
            try admin.execute(unsafeSQL: "CREATE FUNCTION public.\(function)(integer) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'planted'$$")
            try admin.execute(unsafeSQL: "ALTER FUNCTION public.\(function)(integer) OWNER TO \(attacker)")
            var message = "no error"
            do {
                let result = try await migrator.migrate(tenant: tenants[1], to: "v3")
                message += ": \(result.outcome)"
            } catch {
                message = "\(error)"
            }
            for part in ["RecipeTypeToEntree", "function public.\(function)(integer)", attacker, "42501"] {
                #expect(message.contains(part), "the refusal does not name \(part): \(message)")
            }
            #expect(try await migrator.tenants().first { $0.name.rawValue == tenants[1] }?.version == "v2")
            #expect(try fixture.preparedTransactions() == 0)
        }
    }
}
