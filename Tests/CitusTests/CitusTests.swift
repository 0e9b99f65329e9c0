import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// tenant-migrate, unmodified, on a Citus coordinator with schema-based sharding (docs/Citus.md).
///
/// Runs against `TEST_CITUS_URL`; without it every test is reported as skipped (start a local
/// three-node cluster with `scripts/citus-cluster.sh start`, which prints the URL to use).
@Suite("Citus schema-based sharding", .serialized, .enabled(if: citusURL != nil, "TEST_CITUS_URL is not set: run scripts/citus-cluster.sh start and export the URL it prints"))
struct CitusTests {
    @Test func oneTenantAndManyBecomeDistributedSchemasAndTheCatalogStaysLocal() async throws {
        try await CitusFixture.with { fixture in
            let migrator = try fixture.migrator()
            let one = fixture.names(1, "one")[0]
            let record = try await migrator.createTenant(one, version: "v1")
            #expect(try fixture.isDistributed(record.schema))
            #expect(try !fixture.isDistributed(fixture.catalog.schema))
            let catalogTablesDistributed: Int = try fixture.connection.scalar(
                "SELECT count(*)::int FROM pg_catalog.pg_dist_partition WHERE logicalrelid::text LIKE $1", [fixture.catalog.schema + ".%"]
            )
            #expect(catalogTablesDistributed == 0)

            let many = fixture.names(8)
            let report = try await migrator.createTenants(many, version: "v1", jobs: 4)
            #expect(report.migrated == 8 && report.failed == 0, "\(report.entries.compactMap(\.error))")
            for name in many { #expect(try fixture.isDistributed("tenant_" + name)) }
            #expect(try fixture.preparedTransactions() == 0)
        }
    }

    @Test func eachTenantsTablesAreColocatedOnOneWorkerAndTenantsSpreadOverTheWorkers() async throws {
        try await CitusFixture.with { fixture in
            let tenants = fixture.names(12)
            let report = try await fixture.migrator().createTenants(tenants, version: "v1", jobs: 3)
            #expect(report.migrated == 12)
            let nodes = try fixture.nodesBySchema()
            #expect(nodes.count == 12)
            for (schema, ports) in nodes { #expect(ports.count == 1, "\(schema) is spread over \(ports.sorted())") }
            let tablesPerTenant: Int = try fixture.connection.scalar("""
                SELECT count(*)::int FROM pg_catalog.pg_dist_partition p JOIN pg_catalog.pg_class c ON c.oid = p.logicalrelid
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1
                """, ["tenant_" + tenants[0]])
            #expect(tablesPerTenant == 2)  // v1: recipe, recipe_ingredient
            var perWorker: [Int: Int] = [:]
            for ports in nodes.values { if let port = ports.first { perWorker[port, default: 0] += 1 } }
            let workers: Int = try fixture.connection.scalar("SELECT count(*)::int FROM citus_get_active_worker_nodes()")
            print("Citus colocation: \(nodes.count) tenants, each on one node; tenants per worker: "
                + perWorker.sorted { $0.key < $1.key }.map { "port \($0.key): \($0.value)" }.joined(separator: ", "))
            #expect(perWorker.count == min(workers, nodes.count), "tenants per worker: \(perWorker)")
        }
    }

    @Test func migrateThroughTheMappedStepVerifyRollBackAndDrop() async throws {
        try await CitusFixture.with { fixture in
            let migrator = try fixture.migrator()
            let tenant = fixture.names(1)[0], schema = "tenant_" + tenant
            _ = try await migrator.createTenant(tenant, version: "v1")
            try fixture.connection.loadRecipes(tenants: [tenant], recipes: 10)
            let ingredientsQuery = "SELECT md5(string_agg(concat_ws('|', id, recipe_id, name, quantity, unit_of_measure), ',' ORDER BY id)) FROM \(schema).recipe_ingredient"
            let ingredientsAtV1: String = try fixture.connection.scalar(ingredientsQuery)

            // v1 → v2 (inferred) → v3 (mapped, with the Recipes Swift policies).
            let result = try await migrator.migrate(tenant: tenant, to: "v3")
            #expect(result.outcome == .migrated)
            #expect(try fixture.connection.scalar("SELECT count(*)::int FROM \(schema).recipe_ingredient WHERE ingredient_id IS NOT NULL", as: Int.self) == 30)
            #expect(try fixture.connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE type IN ('Meat', 'Fish')", as: Int.self) == 0)
            #expect(try fixture.connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE type = 'Entrée'", as: Int.self) == 4)
            // The tables v3 added, and the tenant's archive of what v2 → v3 overwrote, are in the
            // tenant's distributed schema, on the tenant's one node.
            #expect(try fixture.nodesBySchema()[schema]?.count == 1)
            let v3Tables: String = try fixture.connection.scalar("""
                SELECT string_agg(c.relname::text, ',' ORDER BY c.relname) FROM pg_catalog.pg_dist_partition p
                JOIN pg_catalog.pg_class c ON c.oid = p.logicalrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = $1
                """, [schema])
            #expect(v3Tables == "_tm_archive,ingredient,recipe,recipe_ingredient,unit_of_measure")

            let reports = try await migrator.verify(tenants: [tenant])
            #expect(reports.count == 1 && reports[0].isClean, "\(reports.map(\.differences))")
            let scratchSchemas: Int = try fixture.connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_namespace WHERE nspname LIKE '\\_tm\\_%'")
            #expect(scratchSchemas == 0)

            let back = try await migrator.rollback(tenant: tenant, to: "v1", allowDestructive: true)
            #expect(back.outcome == .migrated)
            #expect(try fixture.connection.scalar(ingredientsQuery, as: String.self) == ingredientsAtV1)
            #expect(try await migrator.verify(tenants: [tenant]).allSatisfy(\.isClean))

            try await migrator.dropTenant(tenant, confirmed: true)
            #expect(try fixture.connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_namespace WHERE nspname = $1", [schema], as: Int.self) == 0)
            #expect(try fixture.nodesBySchema()[schema] == nil)
            #expect(try fixture.preparedTransactions() == 0)
        }
    }

    @Test func aTenantFailingAfterDDLRanOnAWorkerIsRolledBackOnEveryNode() async throws {
        try await CitusFixture.with { fixture in
            let migrator = try fixture.migrator()
            let tenants = fixture.names(4)
            _ = try await migrator.createTenants(tenants, version: "v1", jobs: 2)
            try fixture.connection.loadRecipes(tenants: tenants, recipes: 5)
            // v3 drops recipe_ingredient.name late in the mapped step; a view reading it makes that
            // DROP COLUMN fail (2BP01) after the step's DDL and data moves ran on the worker.
            let failing = tenants[2], schema = fixture.connection.quoteIdentifier("tenant_" + failing)
            try fixture.connection.execute(unsafeSQL: """
                CREATE VIEW \(schema).ingredient_report AS
                SELECT r.name AS recipe, i.name AS ingredient FROM \(schema).recipe AS r JOIN \(schema).recipe_ingredient AS i ON i.recipe_id = r.id
                """)
            let shapeQuery = """
                SELECT string_agg(c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod), ',' ORDER BY c.relname, a.attnum)
                FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = $1 AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind = 'r'
                """
            let shapeBefore: String = try fixture.connection.scalar(shapeQuery, ["tenant_" + failing])
            let rowsQuery = "SELECT md5(string_agg(concat_ws('|', id, recipe_id, name, quantity, unit_of_measure), ',' ORDER BY id)) FROM \(schema).recipe_ingredient"
            let rowsBefore: String = try fixture.connection.scalar(rowsQuery)
            let (worker, shard) = try fixture.workerConnection(holding: "tenant_" + failing)
            let shardShape = "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_catalog.pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped"
            let shardName = try shard("recipe_ingredient")
            let shardBefore: String = try worker.execute(unsafeSQL: shardShape, [shardName]).first!.decode(String.self, at: 0)

            let report = try await migrator.migrateAll(jobs: 2)
            #expect(report.migrated == 3 && report.failed == 1)
            let failed = report.entries.first { $0.outcome == .failed }
            #expect(failed?.tenant == failing)
            #expect(failed?.sqlState == "2BP01")
            // Coordinator and worker: as before, row for row; nothing left prepared.
            #expect(try fixture.connection.scalar(shapeQuery, ["tenant_" + failing], as: String.self) == shapeBefore)
            #expect(try fixture.connection.scalar(rowsQuery, as: String.self) == rowsBefore)
            #expect(try worker.execute(unsafeSQL: shardShape, [shardName]).first!.decode(String.self, at: 0) == shardBefore)
            let unitShards: Int = try fixture.connection.scalar("""
                SELECT count(*)::int FROM citus_shards s JOIN pg_catalog.pg_class c ON c.oid = s.table_name
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1
                """, ["tenant_" + failing])
            #expect(unitShards == 2)
            #expect(try fixture.preparedTransactions() == 0)
            #expect(try fixture.connection.scalar("SELECT version FROM \(fixture.catalog.schema).tenants WHERE name = $1", [failing], as: String.self) == "v1")
        }
    }

    @Test func aLockHeldOnAWorkerIsBoundedByTheLockTimeout() async throws {
        try await CitusFixture.with { fixture in
            let tenant = fixture.names(1)[0]
            _ = try await fixture.migrator().createTenant(tenant, version: "v1")
            try fixture.connection.loadRecipes(tenants: [tenant], recipes: 3)
            // A reader on the worker itself, in a transaction that stays open: the coordinator's
            // locks do not see it, only the shard's DDL does. The server ends it after 60 s at most.
            let (worker, shard) = try fixture.workerConnection(holding: "tenant_" + tenant)
            try worker.execute("SELECT pg_catalog.set_config('idle_in_transaction_session_timeout', '60s', false)")
            try worker.script("BEGIN")
            try worker.execute(unsafeSQL: "LOCK TABLE \(try shard("recipe_ingredient")) IN ACCESS SHARE MODE")
            do {
                let migrator = try fixture.migrator(lockTimeout: .milliseconds(300), maxAttempts: 2)
                var caught: TenantMigrationError?
                do {
                    _ = try await migrator.migrate(tenant: tenant, to: "v3")
                } catch let error as TenantMigrationError {
                    caught = error
                }
                // Ended by the lock timeout (55P03, both attempts), not by the holder going away: a
                // wait the timeout did not bound would end only when the server ends the holder's
                // transaction, and the step would then go through.
                guard let caught else { throw TestFailure("the migration did not time out") }
                guard case .lockTimeout = caught.reason else { throw TestFailure("expected a lock timeout, got \(caught)") }
                #expect(caught.attempts == 2)
                try Self.expectStillHolding(worker)
            }
            if TenantMigrateExecutable.url != nil {
                // The same through the command line's --lock-timeout.
                let run = try await TenantMigrateExecutable.run([
                    "migrate", "--tenant", tenant, "--lock-timeout", "300", "--max-attempts", "2",
                    "--database-url", fixture.conninfo, "--migrations", migrationsDirectory,
                    "--catalog", fixture.catalog.schema,
                ])
                #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
                #expect(run.stderr.contains("55P03"), "\(run.stderr)")
                try Self.expectStillHolding(worker)
            }
            try worker.script("ROLLBACK")
            // Once the reader is gone, it goes through.
            #expect(try await fixture.migrator().migrate(tenant: tenant, to: "v3").outcome == .migrated)
            #expect(try fixture.preparedTransactions() == 0)
        }
    }

    @Test(.enabled(if: TenantMigrateExecutable.url != nil, "needs the tenant-migrate executable beside the test bundle"))
    func statusAndTenantListShowEachTenantsNodeAndTheWorkers() async throws {
        try await CitusFixture.with { fixture in
            let migrator = try fixture.migrator()
            let tenants = fixture.names(4)
            _ = try await migrator.createTenants(tenants, version: "v1", jobs: 2)
            let nodes = try fixture.nodesBySchema()
            let placement = try #require(try await migrator.citusPlacement())
            let workers: Int = try fixture.connection.scalar("SELECT count(*)::int FROM citus_get_active_worker_nodes()")
            #expect(placement.workers == workers)
            for status in try await migrator.status() {
                let port = try #require(nodes[status.record.schema]?.first)
                #expect(status.node?.hasSuffix(":\(port)") == true, "\(status.record.name): \(status.node ?? "nil")")
            }

            let common = ["--database-url", fixture.conninfo, "--migrations", migrationsDirectory,
                          "--catalog", fixture.catalog.schema]
            let status = try await TenantMigrateExecutable.run(["status"] + common)
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.stdout.contains("Citus: \(workers) workers"), "\(status.stdout)")
            #expect(status.stdout.contains("NODE"))
            let json = try await TenantMigrateExecutable.run(["status", "--json"] + common)
            let statuses = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
            #expect(statuses.count == 4 && statuses.allSatisfy { ($0["node"] as? String)?.contains(":") == true }, "\(json.stdout)")
            let list = try await TenantMigrateExecutable.run(["tenant", "list", "--json"] + common)
            let listed = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
            #expect(listed.count == 4)
            for entry in listed {
                let schema = entry["schema"] as? String ?? ""
                let port = try #require(nodes[schema]?.first)
                #expect((entry["node"] as? String)?.hasSuffix(":\(port)") == true, "\(entry)")
            }
            print("tenant-migrate status on Citus:\n" + status.stdout)
        }
    }
}

extension CitusTests {
    /// `worker` (the reader on the worker node) is still in its transaction, holding its lock on
    /// the shard of `recipe_ingredient`: what ended the migration's wait was not its going away.
    static func expectStillHolding(_ worker: Connection, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let held = try worker.scalar("""
            SELECT count(*)::int FROM pg_catalog.pg_locks WHERE pid = pg_catalog.pg_backend_pid() AND locktype = 'relation'
               AND mode = 'AccessShareLock' AND granted AND relation::regclass::text LIKE '%recipe_ingredient%'
            """, as: Int.self)
        #expect(held == 1, "the reader's lock on the shard is gone", sourceLocation: sourceLocation)
    }
}
