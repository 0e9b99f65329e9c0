import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
@testable import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// What one tenant's migration sends, counted by the migrating connection itself
/// (`Connection.statistics`): as few round trips as the change needs, the same whatever the
/// tenant's size, and two for a tenant already there. The counts are upper bounds of what the
/// executor sends today; more would be a regression (a statement that waits for its own round trip).
@Suite("One tenant's round trips")
struct TenantRunTests {
    /// Recipes v1 → v3 (an inferred step, then the mapped step with both Swift policies, the
    /// archive of Meat and Fish types and of units): the round trips of the migration, as a fleet
    /// sends it (it knows the tenant's version) and as a single migration does.
    @Test func aMigrationCostsItsPipelinesNotAStatementEach() async throws {
        try await TestPostgres.withRecipesMigrator { conninfo, migrator in
            let created = try await migrator.createTenants(["first", "small", "large", "single"], version: "v1", jobs: 1)
            try #require(created.migrated == 4)
            let connection = try Connection(conninfo, logger: .quiet("TenantRunTests"))
            try connection.loadRecipes(tenants: ["first", "small", "single"], recipes: 5)
            try connection.loadRecipes(tenants: ["large"], recipes: 400)
            let records = try Dictionary(uniqueKeysWithValues: migrator.catalog.tenants(on: connection).map { ($0.name.rawValue, $0) })
            var executor = migrator.executor
            executor.plans = PlanCache()
            _ = try connection.capabilities  // learned once per connection

            var counts: [String: Connection.Statistics] = [:]
            // The fleet's first tenant learns what its policies' relationship passes do (see
            // RelationshipPasses); the ones after it are compared.
            for name in ["first", "small", "large"] {
                connection.resetStatistics()
                let result = try executor.migrate(try TenantName(name), .migrate(), expecting: records[name], on: connection)
                #expect(result.outcome == .migrated && result.toVersion == "v3")
                counts[name] = connection.statistics
            }
            let small = try #require(counts["small"]), large = try #require(counts["large"])
            #expect(small.roundTrips <= 13, "\(small)")
            #expect(small.statements <= 40, "\(small)")
            // 80 times the rows, the same round trips and statements: nothing is sent per row.
            #expect(large.roundTrips == small.roundTrips && large.statements == small.statements, "\(small) vs \(large)")
            // The work was done: links set, Meat and Fish made Entrée and archived.
            #expect(try connection.scalar("SELECT count(*)::int FROM tenant_large.recipe_ingredient WHERE ingredient_id IS NULL", as: Int.self) == 0)
            #expect(try connection.scalar("SELECT count(*)::int FROM tenant_large.recipe WHERE type = 'Entrée'", as: Int.self) == 160)
            #expect(try connection.scalar("SELECT count(*)::int FROM tenant_large._tm_archive WHERE column_name = 'type'", as: Int.self) == 160)

            // Without a fleet's catalog query, the tables are locked once the record is read: a round trip more.
            connection.resetStatistics()
            #expect(try executor.migrate(try TenantName("single"), .migrate(), on: connection).outcome == .migrated)
            #expect(connection.statistics.roundTrips <= small.roundTrips + 1, "\(connection.statistics)")

            // Already there: the first round trip (lock, record, facts) and the commit.
            connection.resetStatistics()
            #expect(try executor.migrate(try TenantName("small"), .migrate(), expecting: records["small"], on: connection).outcome == .alreadyCurrent)
            #expect(connection.statistics.roundTrips == 2, "\(connection.statistics)")
        }
    }

    /// The statements the executor prepares once per session (the lock, the record, the schema's
    /// facts, the version and the history) settle on a generic plan after PostgreSQL's five custom
    /// ones: a statement the planner kept planning for every tenant would cost a planning each time.
    @Test func theStatementsPreparedPerSessionKeepAGenericPlan() async throws {
        try await TestPostgres.withRecipesMigrator { conninfo, migrator in
            let names = (1...8).map { "t\($0)" }
            try #require(try await migrator.createTenants(names, version: "v1", jobs: 1).migrated == names.count)
            let connection = try Connection(conninfo, logger: .quiet("TenantRunTests"))
            try connection.loadRecipes(tenants: names, recipes: 2)
            let records = try Dictionary(uniqueKeysWithValues: migrator.catalog.tenants(on: connection).map { ($0.name.rawValue, $0) })
            var executor = migrator.executor
            executor.plans = PlanCache()
            for name in names {
                #expect(try executor.migrate(try TenantName(name), .migrate(), expecting: records[name], on: connection).outcome == .migrated)
            }
            let plans = try connection.execute("""
                SELECT statement, generic_plans, custom_plans FROM pg_catalog.pg_prepared_statements WHERE from_sql = false
                """).map { (sql: try $0.decode(String.self, at: 0), generic: try $0.decode(Int.self, at: 1), custom: try $0.decode(Int.self, at: 2)) }
            #expect(plans.count >= 5, "\(plans.map(\.sql))")
            #expect(plans.contains { $0.sql.contains("pg_trigger") }, "the schema's facts are among them")
            for plan in plans {
                #expect(plan.custom <= 5, "planned again for each tenant: \(plan.sql)")
            }

            // Which plan a statement keeps depends on the catalog's size: in a database of hundreds
            // of tenants, an `unnest` of the table names (100 rows to a generic plan, 4 to a custom
            // one) made the generic plan of the facts look twice as dear, and PostgreSQL planned
            // it again for every tenant (0.8 ms). Here the catalog is small and the gap too (1%),
            // but a generic plan that counts as a custom one does is kept whatever the catalog.
            let facts = TenantSchemaFacts.statement(of: try TenantName("t1"), in: migrator.catalog, family: migrator.family)
            let arguments = facts.binds.map { connection.quoteLiteral(String(decoding: $0.bytes ?? [], as: UTF8.self)) }.joined(separator: ", ")
            try connection.execute(unsafeSQL: "PREPARE tm_facts AS " + facts.sql)
            func cost(_ mode: String) throws -> Double {
                try connection.execute(unsafeSQL: "SET plan_cache_mode = \(mode)")
                let plan = try connection.scalar("EXPLAIN (FORMAT JSON) EXECUTE tm_facts(\(arguments))", as: String.self)
                let json = try JSONSerialization.jsonObject(with: Data(plan.utf8)) as? [[String: [String: Any]]]
                return try #require(json?.first?["Plan"]?["Total Cost"] as? Double)
            }
            let generic = try cost("force_generic_plan"), custom = try cost("force_custom_plan")
            #expect(generic <= custom * 1.001, "generic \(generic), custom \(custom)")
        }
    }

    /// A foreign trigger (one the model does not define) found by the first round trip is disabled
    /// for the migration and enabled again, in its mode, on the table's new name.
    @Test func foreignTriggersFoundByTheFirstRoundTripAreDisabledAndRestored() async throws {
        try await TestPostgres.withRecipesMigrator { conninfo, migrator in
            _ = try await migrator.createTenants(["acme"], version: "v1", jobs: 1)
            let connection = try Connection(conninfo, logger: .quiet("TenantRunTests"))
            try connection.loadRecipes(tenants: ["acme"], recipes: 5)
            try connection.fixtureScript("""
                CREATE TABLE public.trigger_calls (n int);
                CREATE FUNCTION public.count_call() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO public.trigger_calls VALUES (1); RETURN NEW; END $$;
                CREATE TRIGGER audit AFTER UPDATE ON tenant_acme.recipe FOR EACH ROW EXECUTE FUNCTION public.count_call();
                ALTER TABLE tenant_acme.recipe ENABLE ALWAYS TRIGGER audit;
                """)
            let result = try await migrator.migrate(tenant: "acme")
            #expect(result.outcome == .migrated)
            #expect(try connection.scalar("SELECT count(*)::int FROM public.trigger_calls", as: Int.self) == 0, "the migration's updates fired no foreign trigger")
            #expect(try connection.scalar("""
                SELECT tgenabled::text FROM pg_trigger WHERE tgname = 'audit' AND tgrelid = 'tenant_acme.recipe'::regclass
                """, as: String.self) == "A", "enabled again, ALWAYS as before")
        }
    }

    /// An archive created where no default privileges apply costs no look at its grants; where
    /// default privileges for all schemas (`ALTER DEFAULT PRIVILEGES` without `IN SCHEMA`) grant
    /// something on new tables, the first round trip sees them and the archive has them revoked.
    @Test func theArchiveLooksForDefaultGrantsOnlyWhereDefaultPrivilegesApply() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (logger, store) = RecordingLogHandler.logger(level: .debug)
            let migrator = try makeRecipesMigrator(conninfo, logger: logger)
            _ = try await migrator.createTenants(["plain", "granted"], version: "v1", jobs: 1)
            let connection = try Connection(conninfo, logger: .quiet("TenantRunTests"))
            try connection.loadRecipes(tenants: ["plain", "granted"], recipes: 5)
            func grantLooks() -> Int { store.messages(at: .debug).count { $0.contains("aclexplode(c.relacl)") } }
            func archiveGrantees(_ tenant: String) throws -> [String] {
                try connection.execute(unsafeSQL: """
                    SELECT DISTINCT a.grantee::regrole::text FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
                    WHERE c.oid = 'tenant_\(tenant)._tm_archive'::regclass AND a.grantee <> c.relowner
                    """).map { try $0.decode(String.self, at: 0) }
            }

            store.removeAll()
            #expect(try await migrator.migrate(tenant: "plain").outcome == .migrated)
            #expect(try connection.scalar("SELECT count(*)::int FROM tenant_plain._tm_archive WHERE column_name = 'type'", as: Int.self) == 2)
            #expect(grantLooks() == 0)
            #expect(try archiveGrantees("plain").isEmpty)

            let role = "tm_reader_\(UInt32.random(in: 0 ... .max))"
            try connection.fixtureScript("CREATE ROLE \(role); ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO \(role)")
            defer { _ = try? connection.fixtureScript("ALTER DEFAULT PRIVILEGES REVOKE SELECT ON TABLES FROM \(role); DROP ROLE \(role)") }
            store.removeAll()
            #expect(try await migrator.migrate(tenant: "granted").outcome == .migrated)
            #expect(grantLooks() == 1)
            #expect(try archiveGrantees("granted").isEmpty, "the default grant was revoked from the archive")
            #expect(try connection.scalar("SELECT pg_catalog.has_table_privilege('\(role)', 'tenant_granted.recipe', 'SELECT')", as: Bool.self) == false,
                    "(the tenant's own tables were created before the default privileges)")
            #expect(try connection.scalar("SELECT pg_catalog.has_table_privilege('\(role)', 'tenant_granted.ingredient', 'SELECT')", as: Bool.self),
                    "a table the migration created gets what default privileges grant, as any new table")
        }
    }
}
