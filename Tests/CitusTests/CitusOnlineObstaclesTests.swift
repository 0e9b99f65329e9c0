import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// What each part of an online run does on Citus with schema-based sharding, measured on the
/// cluster: why `migrate --online` is refused there (docs/Citus.md, "Online migrations on Citus"),
/// and what a layout for Citus could build on. Each test does by hand, with the statements an
/// online run sends, one part of the run on a real tenant, and asserts what Citus did.
extension CitusTests {
    /// `--online-above` on Citus sizes each tenant through the coordinator (its tables there are
    /// never analyzed, so their rows are counted up to the bound, on the worker): a tenant below
    /// the bound migrates offline as usual, one above it online, in its own schema, with no
    /// capture, shadow or trigger left anywhere.
    @Test func onlineAboveOnCitusMigratesSmallTenantsOfflineAndTheBigOnesOnline() async throws {
        try await CitusFixture.with { fixture in
            let migrator = try fixture.migrator()
            let tenants = try await fixture.recipesTenants(at: "v2", ("small", 3), ("big", 30))
            let (small, big) = (tenants[0], tenants[1])
            let report = try await migrator.moveAll(.migrate(to: "v3", online: .above(rows: 50)), jobs: 1)
            let entries = Dictionary(uniqueKeysWithValues: report.entries.map { ($0.tenant, $0) })
            #expect(entries[small]?.outcome == .migrated, "\(String(describing: entries[small]))")
            #expect(entries[small]?.online?.mode == "offline", "\(String(describing: entries[small]?.online))")
            #expect(entries[big]?.outcome == .migrated, "\(String(describing: entries[big]))")
            #expect(entries[big]?.online?.mode == "shadow", "\(String(describing: entries[big]?.online))")
            let version: (String) throws -> String = { name in
                try fixture.connection.execute("SELECT version FROM \(id: fixture.catalog.schema).\(id: "tenants") WHERE name = \(bind: .text(name))", schema: "")
                    .first!.decode(String.self, at: 0)
            }
            #expect(try version(big) == "v3" && version(small) == "v3")
            let leftovers: Int = try fixture.connection.scalar("""
                SELECT ((SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname LIKE '\\_tm\\_%')
                     + (SELECT count(*) FROM pg_catalog.pg_trigger WHERE tgname LIKE '\\_tm\\_online%')
                     + (SELECT count(*) FROM pg_catalog.pg_class WHERE relname LIKE '\\_tm\\_shadow\\_%' OR relname LIKE '\\_tm\\_retired\\_%'))::int
                """, as: Int.self)
            #expect(leftovers == 0)
        }
    }

    /// Capture: a row trigger on a tenant's table is refused unless `citus.enable_unsafe_triggers`
    /// is on in the transaction that creates it. Then it fires on the tenant's worker for the
    /// writes of every session, logging into a table of the tenant's schema (colocated), but it
    /// sees the **shard's** name as `TG_TABLE_NAME`, not the table's, which the capture logs and
    /// catch-up matches by. `ENABLE ALWAYS TRIGGER` and `DROP TRIGGER` need the setting as well.
    @Test func onlineOnCitusTheCaptureTriggerNeedsUnsafeTriggersAndSeesTheShardsName() async throws {
        try await CitusFixture.with { fixture in
            let schema = try await fixture.onlineTenant()
            let connection = fixture.connection
            try fixture.createCaptureLog(in: schema, probe: "true")
            let trigger: SQL = "CREATE TRIGGER \(id: "_tm_online_capture") AFTER INSERT OR UPDATE OR DELETE ON \(table: "recipe") "
                + "FOR EACH ROW EXECUTE FUNCTION \(SQL.schema).\(id: "_tm_capture")()"
            let refused = #expect(throws: PQError.self) { try connection.execute(trigger, schema: schema) }
            #expect(refused?.message.contains("triggers are not supported on distributed tables") == true, "\(String(describing: refused))")

            try fixture.withUnsafeTriggers { try connection.execute(trigger, schema: schema) }
            // The log is a table of the tenant's distributed schema: same colocation group, same node.
            #expect(try fixture.colocationGroups(of: schema).count == 1)
            #expect(try fixture.nodesBySchema()[schema]?.count == 1)

            // A write of another session, which has never heard of the setting, fires the trigger.
            let app = try Connection(fixture.conninfo, logger: quietLogger)
            try app.execute("UPDATE \(table: "recipe") SET \(id: "name") = \(id: "name") || '!' WHERE \(id: "id") <= 3", schema: schema)
            let logged = try connection.execute("SELECT \(id: "relation"), pg_catalog.count(*)::int FROM \(table: "_tm_change_log") GROUP BY 1", schema: schema)
                .map { (try $0.decode(String.self, at: 0), try $0.decode(Int.self, at: 1)) }
            let shard = try fixture.shardName(of: "recipe", in: schema)
            #expect(logged.count == 1 && logged.first?.1 == 3, "\(logged)")
            #expect(logged.first?.0 == shard && shard != "recipe", "logged \(logged), shard \(shard)")

            // What the capture does now (ChangeCapture): the table's name, as the model has it,
            // is the trigger's first argument, and reaches the worker with the trigger.
            try connection.execute("""
                CREATE FUNCTION \(SQL.schema).\(id: "_tm_capture_named")() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
                SET search_path = pg_catalog, pg_temp AS $capture$
                BEGIN
                    INSERT INTO \(table: "_tm_change_log") VALUES (TG_ARGV[0], ARRAY[coalesce(NEW.id, OLD.id)], true);
                    RETURN NULL;
                END
                $capture$
                """, schema: schema)
            try fixture.withUnsafeTriggers {
                try connection.execute("CREATE TRIGGER \(id: "_tm_online_capture_named") AFTER UPDATE ON \(table: "recipe") "
                    + "FOR EACH ROW EXECUTE FUNCTION \(SQL.schema).\(id: "_tm_capture_named")(\(literal: "recipe"))", schema: schema)
            }
            try connection.execute("DELETE FROM \(table: "_tm_change_log")", schema: schema)
            try app.execute("UPDATE \(table: "recipe") SET \(id: "name") = \(id: "name") || '!' WHERE \(id: "id") <= 2", schema: schema)
            let named = try connection.execute("SELECT \(id: "relation"), pg_catalog.count(*)::int FROM \(table: "_tm_change_log") GROUP BY 1 ORDER BY 1", schema: schema)
                .map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(Int.self, at: 1))" }
            #expect(named == ["recipe 2", "\(shard) 2"].sorted(), "\(named)")
            try fixture.withUnsafeTriggers {
                try connection.execute("DROP TRIGGER \(id: "_tm_online_capture_named") ON \(table: "recipe")", schema: schema)
            }

            // Every other trigger statement of the run needs the setting too: `ENABLE ALWAYS` (so
            // that it fires under session_replication_role = replica), and the DROP TRIGGER of the
            // cutover, of the next run and of `online cleanup`.
            let always: SQL = "ALTER TABLE \(table: "recipe") ENABLE ALWAYS TRIGGER \(id: "_tm_online_capture")"
            let drop: SQL = "DROP TRIGGER \(id: "_tm_online_capture") ON \(table: "recipe")"
            for statement in [always, drop] {
                let error = #expect(throws: PQError.self) { try connection.execute(statement, schema: schema) }
                #expect(error?.message.contains("triggers are not supported on distributed tables") == true, "\(String(describing: error))")
            }
            try fixture.withUnsafeTriggers {
                try connection.execute(always, schema: schema)
                try connection.execute(drop, schema: schema)
            }
        }
    }

    /// Liveness: each capture call first asks whether the run still holds the tenant, in the
    /// catalog (`catalog_info`), which is local to the coordinator. On the worker, where the
    /// trigger runs, that table does not exist: the **app's own write fails** (42P01, on the
    /// worker). Nor does the worker know the runner's server process (`pg_stat_get_activity`
    /// there has no backend of that number and start time).
    @Test func onlineOnCitusALivenessProbeOnTheCatalogFailsTheAppsWriteOnTheWorker() async throws {
        try await CitusFixture.with { fixture in
            let schema = try await fixture.onlineTenant()
            let connection = fixture.connection
            let probe: SQL = "EXISTS (SELECT FROM \(id: fixture.catalog.schema).\(id: "catalog_info"))"
            try fixture.createCaptureLog(in: schema, probe: probe.text(schema: schema))
            try fixture.withUnsafeTriggers {
                try connection.execute("CREATE TRIGGER \(id: "_tm_online_capture") AFTER INSERT OR UPDATE OR DELETE ON \(table: "recipe") "
                    + "FOR EACH ROW EXECUTE FUNCTION \(SQL.schema).\(id: "_tm_capture")()", schema: schema)
            }
            let before: String = try connection.scalar("SELECT name FROM \(schema).recipe WHERE id = 1")
            let app = try Connection(fixture.conninfo, logger: quietLogger)
            let failed = #expect(throws: PQError.self) {
                try app.execute("UPDATE \(table: "recipe") SET \(id: "name") = 'changed' WHERE \(id: "id") = 1", schema: schema)
            }
            let worker = try fixture.workerPort(of: schema)
            #expect(failed?.sqlState?.rawValue == "42P01", "\(String(describing: failed))")
            let said = (failed?.message ?? "") + " " + (failed?.context ?? "")
            #expect(said.contains("catalog_info") && said.contains("while executing command on localhost:\(worker)"), "\(said)")
            #expect(try connection.scalar("SELECT name FROM \(schema).recipe WHERE id = 1", as: String.self) == before)

            // The runner's process, by number and start time, as the lease names it.
            let runner = try connection.execute("SELECT pg_catalog.pg_backend_pid(), (SELECT backend_start::text FROM pg_catalog.pg_stat_activity WHERE pid = pg_catalog.pg_backend_pid())", schema: schema).first!
            let pid = try runner.decode(Int.self, at: 0), started = try runner.decode(String.self, at: 1)
            let onCoordinator: Int = try connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_stat_get_activity($1::int4) WHERE backend_start = $2::timestamptz", [pid, started])
            let onWorker: Int = try fixture.workerConnection(holding: schema).connection
                .scalar("SELECT count(*)::int FROM pg_catalog.pg_stat_get_activity($1::int4) WHERE backend_start = $2::timestamptz", [pid, started])
            #expect(onCoordinator == 1 && onWorker == 0)
        }
    }

    /// Shadow: a private schema (`_tm_online_<oid>`) becomes a distributed schema of its own, in
    /// another colocation group than the tenant's; a table cannot be put in the tenant's group by
    /// hand either (`colocate_with` refuses distributed-schema tables). And the shadow as the step
    /// executor builds it (the model's tables, under the model's names and constraint names) cannot
    /// be built in the tenant's schema: the live tables have those names. Under the shadow's
    /// naming (``TableNaming/citusShadow``) it can, colocated.
    @Test func onlineOnCitusAShadowIsColocatedOnlyInTheTenantsSchemaWhereTheModelsNamesAreTaken() async throws {
        try await CitusFixture.with { fixture in
            let schema = try await fixture.onlineTenant()
            let connection = fixture.connection
            let oid: Int = try connection.scalar("SELECT oid::int FROM pg_catalog.pg_namespace WHERE nspname = $1", [schema])
            let work = "_tm_online_\(oid)", local = "_tm_local_\(oid)"
            defer { for name in [work, local] { _ = try? connection.execute("DROP SCHEMA IF EXISTS \(id: name) CASCADE", schema: schema) } }
            try connection.execute("CREATE SCHEMA \(id: work)", schema: schema)
            try connection.execute("CREATE TABLE \(id: work).\(id: "recipe") (LIKE \(table: "recipe") INCLUDING ALL)", schema: schema)
            #expect(try fixture.isDistributed(work))
            let tenantGroup = try fixture.colocationGroups(of: schema), workGroup = try fixture.colocationGroups(of: work)
            #expect(tenantGroup.count == 1 && workGroup.count == 1 && tenantGroup != workGroup, "\(tenantGroup) \(workGroup)")

            try connection.execute("BEGIN")
            try connection.execute("SET LOCAL citus.enable_schema_based_sharding = off")
            try connection.execute("CREATE SCHEMA \(id: local)", schema: schema)
            try connection.execute("COMMIT")
            try connection.execute("CREATE TABLE \(id: local).\(id: "recipe") (LIKE \(table: "recipe") INCLUDING ALL)", schema: schema)
            let colocated = #expect(throws: PQError.self) {
                try connection.execute("SELECT create_distributed_table(\(literal: local + ".recipe"), NULL, colocate_with => \(qualifiedNameLiteral: "recipe"))", schema: schema)
            }
            #expect(colocated?.detail?.contains("Cannot colocate tables with distributed schema tables") == true, "\(String(describing: colocated))")

            let v2 = try #require(try recipesFamily().version(named: "v2"))
            let inTenant = #expect(throws: PQError.self) { try ShadowTables(version: v2, live: schema, schema: schema).create(on: connection) }
            #expect(inTenant?.sqlState?.rawValue == "42P07", "\(String(describing: inTenant))")
            // Under a naming of its own (`_tm_shadow_recipe`, `_tm_shadow_recipe_pkey`, …) the same
            // shadow is built there, next to the live tables and colocated with them.
            try ShadowTables(version: v2, live: schema, schema: schema, naming: .citusShadow).create(on: connection)
            #expect(try fixture.colocationGroups(of: schema) == tenantGroup)
            #expect(try connection.relations(of: schema, like: "\\_tm\\_shadow\\_%").contains("_tm_shadow_recipe_pkey"))
        }
    }

    /// Swap: the cutover moves each shadow table into the tenant's schema with `ALTER TABLE … SET
    /// SCHEMA`. From a private distributed schema Citus first undistributes the table, which it
    /// refuses for a table with an identity column (every entity table has one: `id`); a table
    /// without one is undistributed and distributed again, its rows copied through the coordinator
    /// (new shards, under the table's ACCESS EXCLUSIVE lock). From a local schema the table is
    /// distributed on the way in, identity and all, by copying its rows to the worker, and the
    /// coordinator keeps its own copy. A rename within the tenant's schema keeps the shard: a
    /// catalog change, as the swap is on one server.
    @Test func onlineOnCitusMovingAShadowIntoTheTenantsSchemaCopiesItsRowsAndARenameDoesNot() async throws {
        try await CitusFixture.with { fixture in
            let schema = try await fixture.onlineTenant(recipes: 2_000)
            let connection = fixture.connection
            let oid: Int = try connection.scalar("SELECT oid::int FROM pg_catalog.pg_namespace WHERE nspname = $1", [schema])
            let work = "_tm_online_\(oid)"
            defer { _ = try? connection.execute("DROP SCHEMA IF EXISTS \(id: work) CASCADE", schema: schema) }
            try connection.execute("CREATE SCHEMA \(id: work)", schema: schema)
            try connection.execute("CREATE TABLE \(id: work).\(id: "recipe_identity") (LIKE \(table: "recipe") INCLUDING ALL)", schema: schema)
            let identity = #expect(throws: PQError.self) {
                try connection.execute("ALTER TABLE \(id: work).\(id: "recipe_identity") SET SCHEMA \(SQL.schema)", schema: schema)
            }
            #expect(identity?.message.contains("cannot complete operation on a table with identity column") == true, "\(String(describing: identity))")

            try connection.execute("CREATE TABLE \(id: work).\(id: "recipe_shadow") (LIKE \(table: "recipe") INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)", schema: schema)
            try connection.execute("INSERT INTO \(id: work).\(id: "recipe_shadow") SELECT * FROM \(table: "recipe")", schema: schema)
            let shardBefore = try fixture.shardID(of: "recipe_shadow", in: work)

            let moving = ContinuousClock.now
            try connection.execute("ALTER TABLE \(id: work).\(id: "recipe_shadow") SET SCHEMA \(SQL.schema)", schema: schema)
            let moved = ContinuousClock.now - moving
            let shardAfter = try fixture.shardID(of: "recipe_shadow", in: schema)
            #expect(shardAfter != shardBefore, "the moved table kept its shard \(shardBefore)")
            #expect(try fixture.colocationGroups(of: schema).count == 1)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).recipe_shadow", as: Int.self) == 2_000)

            // From a local schema (schema-based sharding off when it was made), identity and all:
            // distributed on the way in, its rows copied to the worker, and the coordinator keeps
            // its local copy of them until truncate_local_data_after_distributing_table.
            let local = "_tm_local_\(oid)"
            defer { _ = try? connection.execute("DROP SCHEMA IF EXISTS \(id: local) CASCADE", schema: schema) }
            try connection.execute("BEGIN")
            try connection.execute("SET LOCAL citus.enable_schema_based_sharding = off")
            try connection.execute("CREATE SCHEMA \(id: local)", schema: schema)
            try connection.execute("COMMIT")
            try connection.execute("CREATE TABLE \(id: local).\(id: "recipe_local") (LIKE \(table: "recipe") INCLUDING ALL)", schema: schema)
            try connection.execute("INSERT INTO \(id: local).\(id: "recipe_local") SELECT * FROM \(table: "recipe")", schema: schema)
            #expect(try !fixture.isDistributed(local))
            let distributing = ContinuousClock.now
            try connection.execute("ALTER TABLE \(id: local).\(id: "recipe_local") SET SCHEMA \(SQL.schema)", schema: schema)
            let distributed = ContinuousClock.now - distributing
            #expect(try fixture.colocationGroups(of: schema).count == 1)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).recipe_local", as: Int.self) == 2_000)
            let leftOnCoordinator = try connection.execute("SELECT pg_catalog.pg_relation_size(\(qualifiedNameLiteral: "recipe_local"))::int", schema: schema)
                .first?.decode(Int.self, at: 0) ?? 0
            #expect(leftOnCoordinator > 0)

            let renaming = ContinuousClock.now
            try connection.execute("BEGIN")
            try connection.execute("ALTER TABLE \(table: "recipe") RENAME TO \(id: "_tm_retired_recipe")", schema: schema)
            try connection.execute("ALTER TABLE \(table: "recipe_shadow") RENAME TO \(id: "recipe")", schema: schema)
            try connection.execute("COMMIT")
            let renamed = ContinuousClock.now - renaming
            #expect(try fixture.shardID(of: "recipe", in: schema) == shardAfter)
            print("Citus online swap of 2,000 recipes: SET SCHEMA from a private distributed schema \(moved), from a local schema \(distributed) "
                + "(rows copied both times), two renames within the tenant's schema \(renamed)")
        }
    }

    /// A liveness test the worker can answer: a lease row in a table of the tenant's own schema
    /// (colocated, the migrator's alone), which the runner would renew and whose expiry the
    /// capture compares with the clock. The capture reads it on the worker without failing the
    /// app's write: it logs while the lease is fresh and nothing once it expired (a run that stopped
    /// renewing it), and the renewal through the coordinator reaches the worker at once (with the
    /// time as a value or `now()`: Citus refuses `clock_timestamp()` in an UPDATE of such a table).
    @Test func onlineOnCitusALeaseInTheTenantsSchemaIsALivenessTestTheWorkerAnswers() async throws {
        try await CitusFixture.with { fixture in
            let schema = try await fixture.onlineTenant()
            let connection = fixture.connection
            try connection.execute("CREATE TABLE \(table: "_tm_online_lease") (expires_at timestamptz NOT NULL)", schema: schema)
            try connection.execute("INSERT INTO \(table: "_tm_online_lease") VALUES (pg_catalog.clock_timestamp() + interval '1 hour')", schema: schema)
            let probe: SQL = "EXISTS (SELECT FROM \(table: "_tm_online_lease") WHERE expires_at > pg_catalog.clock_timestamp())"
            try fixture.createCaptureLog(in: schema, probe: probe.text(schema: schema))
            try fixture.withUnsafeTriggers {
                try connection.execute("CREATE TRIGGER \(id: "_tm_online_capture") AFTER INSERT OR UPDATE OR DELETE ON \(table: "recipe") "
                    + "FOR EACH ROW EXECUTE FUNCTION \(SQL.schema).\(id: "_tm_capture")()", schema: schema)
            }
            #expect(try fixture.colocationGroups(of: schema).count == 1)
            let app = try Connection(fixture.conninfo, logger: quietLogger)
            let logged = "SELECT count(*)::int FROM \(schema)._tm_change_log"
            try app.execute("UPDATE \(table: "recipe") SET \(id: "name") = \(id: "name") || '!' WHERE \(id: "id") <= 2", schema: schema)
            #expect(try connection.scalar(logged, as: Int.self) == 2)

            // Citus refuses a volatile function in an UPDATE of a distributed table (0A000): the
            // renewal sends the time, or uses now(), which the coordinator evaluates.
            let volatile = #expect(throws: PQError.self) {
                try connection.execute("UPDATE \(table: "_tm_online_lease") SET expires_at = pg_catalog.clock_timestamp()", schema: schema)
            }
            #expect(volatile?.sqlState?.rawValue == "0A000", "\(String(describing: volatile))")
            try connection.execute("UPDATE \(table: "_tm_online_lease") SET expires_at = pg_catalog.now() - interval '1 second'", schema: schema)
            try app.execute("UPDATE \(table: "recipe") SET \(id: "name") = \(id: "name") || '!' WHERE \(id: "id") <= 3", schema: schema)
            #expect(try connection.scalar(logged, as: Int.self) == 2, "an expired lease logs nothing")

            try connection.execute("UPDATE \(table: "_tm_online_lease") SET expires_at = pg_catalog.now() + interval '1 hour'", schema: schema)
            try app.execute("DELETE FROM \(table: "recipe_ingredient") WHERE \(id: "recipe_id") = 4", schema: schema)
            try app.execute("DELETE FROM \(table: "recipe") WHERE \(id: "id") = 4", schema: schema)
            #expect(try connection.scalar(logged, as: Int.self) == 3, "a renewed lease logs again")
        }
    }

    /// The copy's and the catch-up's statements, in the shapes `ShadowTables` sends, run on a
    /// shadow table in the tenant's schema: a batch (`INSERT … SELECT … ORDER BY … LIMIT … RETURNING`
    /// in a CTE that reports the last key), and the sync of the change set, a temporary table
    /// (`pg_temp._tm_changed`), into the shadow (`DELETE … WHERE key IN (SELECT … FROM pg_temp…)`,
    /// then `INSERT … SELECT` of the same keys from the live table).
    @Test func onlineOnCitusTheCopyAndSyncStatementsRunOnAShadowInTheTenantsSchema() async throws {
        try await CitusFixture.with { fixture in
            let schema = try await fixture.onlineTenant(recipes: 30)
            let connection = fixture.connection
            try connection.execute("CREATE TABLE \(table: "_tm_shadow_recipe") (LIKE \(table: "recipe"))", schema: schema)
            let batch: SQL = "WITH moved AS (INSERT INTO \(table: "_tm_shadow_recipe") SELECT l.* FROM \(table: "recipe") AS l WHERE l.id > \(bind: .integer(10)) "
                + "ORDER BY l.id LIMIT \(bind: .integer(15)) RETURNING id) SELECT (SELECT pg_catalog.count(*) FROM moved)::int, last.id::int "
                + "FROM (SELECT 1) AS one LEFT JOIN (SELECT m.id FROM moved AS m ORDER BY m.id DESC LIMIT 1) AS last ON true"
            let row = try #require(try connection.execute(batch, schema: schema).first)
            #expect(try row.decode(Int.self, at: 0) == 15 && row.decode(Int.self, at: 1) == 25)

            try connection.execute("CREATE TEMPORARY TABLE _tm_changed (relation text NOT NULL, key pg_catalog.int8[] NOT NULL, direct boolean NOT NULL, PRIMARY KEY (relation, key))")
            try connection.execute("INSERT INTO pg_temp._tm_changed VALUES ('recipe', '{3}', true), ('recipe', '{12}', true), ('recipe', '{13}', true)")
            try connection.execute("UPDATE \(table: "recipe") SET \(id: "name") = 'changed' WHERE \(id: "id") IN (3, 12, 13)", schema: schema)
            let keys: SQL = "SELECT c.key[1] FROM pg_temp._tm_changed AS c WHERE c.relation = 'recipe'"
            let deleted = try connection.execute("DELETE FROM \(table: "_tm_shadow_recipe") AS s WHERE s.id IN (\(keys))", schema: schema).affectedRows
            let copied = try connection.execute("INSERT INTO \(table: "_tm_shadow_recipe") SELECT l.* FROM \(table: "recipe") AS l WHERE l.id IN (\(keys))", schema: schema).affectedRows
            #expect(deleted == 2 && copied == 3)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema)._tm_shadow_recipe WHERE name = 'changed'", as: Int.self) == 3)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema)._tm_shadow_recipe", as: Int.self) == 16)
            try connection.execute("DROP TABLE pg_temp._tm_changed")
        }
    }

    /// What a layout inside the tenant's schema could build on: a shadow table there is colocated,
    /// the copy into it runs on the worker as one task, and an app role that may use the schema
    /// but owns nothing in it can neither write the migrator's log nor replace or drop its
    /// function or trigger, while its own writes are captured on the worker with the migrator's
    /// rights (`SECURITY DEFINER`).
    @Test func onlineOnCitusInSchemaCaptureObjectsHoldAgainstTheAppRoleAndTheCopyStaysOnTheWorker() async throws {
        try await CitusFixture.with { fixture in
            let schema = try await fixture.onlineTenant()
            let connection = fixture.connection
            try connection.execute("CREATE TABLE \(table: "_tm_shadow_recipe") (LIKE \(table: "recipe"))", schema: schema)
            let plan = try connection.execute("EXPLAIN (COSTS OFF) INSERT INTO \(table: "_tm_shadow_recipe") SELECT * FROM \(table: "recipe")", schema: schema)
                .map { try $0.decode(String.self, at: 0) }.joined(separator: "\n")
            let worker = try fixture.workerPort(of: schema)
            #expect(plan.contains("Task Count: 1") && plan.contains("port=\(worker)") && !plan.contains("coordinator"), "\(plan)")
            #expect(try fixture.colocationGroups(of: schema).count == 1)

            try fixture.createCaptureLog(in: schema, probe: "true")
            try fixture.withUnsafeTriggers {
                try connection.execute("CREATE TRIGGER \(id: "_tm_online_capture") AFTER INSERT OR UPDATE OR DELETE ON \(table: "recipe") "
                    + "FOR EACH ROW EXECUTE FUNCTION \(SQL.schema).\(id: "_tm_capture")()", schema: schema)
            }
            let role = fixture.prefix + "app"
            try connection.execute("CREATE ROLE \(id: role) LOGIN", schema: schema)  // Citus connects to the worker as the role
            defer {
                _ = try? connection.execute("DROP OWNED BY \(id: role)", schema: schema)
                _ = try? connection.execute("DROP ROLE \(id: role)", schema: schema)
            }
            try connection.execute("GRANT USAGE ON SCHEMA \(SQL.schema) TO \(id: role)", schema: schema)
            try connection.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON \(table: "recipe") TO \(id: role)", schema: schema)

            let app = try Connection(fixture.conninfo, logger: quietLogger)
            try app.execute("SET ROLE \(id: role)", schema: schema)
            try app.execute("UPDATE \(table: "recipe") SET \(id: "name") = \(id: "name") || '!' WHERE \(id: "id") <= 2", schema: schema)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema)._tm_change_log", as: Int.self) == 2)
            let attacks: [SQL] = [
                "INSERT INTO \(table: "_tm_change_log") VALUES ('recipe', '{1}', true)",
                "DELETE FROM \(table: "_tm_change_log")",
                "TRUNCATE \(table: "_tm_change_log")",
                "CREATE OR REPLACE FUNCTION \(SQL.schema).\(id: "_tm_capture")() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN RETURN NULL; END $f$",
                "DROP TRIGGER \(id: "_tm_online_capture") ON \(table: "recipe")",
                "ALTER TABLE \(table: "recipe") DISABLE TRIGGER ALL",
                "CREATE TABLE \(table: "_tm_shadow_planted") (id bigint)",
            ]
            for attack in attacks {
                let refused = #expect(throws: PQError.self, "\(attack.text(schema: schema))") { try app.execute(attack, schema: schema) }
                #expect(refused?.sqlState?.rawValue == "42501", "\(attack.text(schema: schema)): \(String(describing: refused))")
            }
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema)._tm_change_log", as: Int.self) == 2)
        }
    }
}

extension CitusFixture {
    /// A tenant at v2 with `recipes` recipes, as an online run finds it; returns its schema.
    func onlineTenant(recipes: Int = 10) async throws -> String {
        let tenant = names(1)[0]
        _ = try await migrator().createTenant(tenant, version: "v2")
        try connection.loadRecipes(tenants: [tenant], version: "v2", recipes: recipes)
        return "tenant_" + tenant
    }

    /// The capture's log and row function as an online run makes them (``ChangeCapture``), in the
    /// tenant's own schema: the function logs the table's name as the trigger sees it and the row's
    /// key, unless `probe` (SQL) says the run is gone. Owned by the migrator, nothing granted.
    func createCaptureLog(in schema: String, probe: String) throws {
        try connection.execute("CREATE TABLE \(table: "_tm_change_log") (relation text NOT NULL, key pg_catalog.int8[] NOT NULL, direct boolean NOT NULL)", schema: schema)
        try connection.execute("""
            CREATE FUNCTION \(SQL.schema).\(id: "_tm_capture")() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
            SET search_path = pg_catalog, pg_temp AS $capture$
            BEGIN
                IF NOT (\(raw: probe)) THEN RETURN NULL; END IF;
                INSERT INTO \(table: "_tm_change_log") VALUES (TG_TABLE_NAME, ARRAY[coalesce(NEW.id, OLD.id)], true);
                RETURN NULL;
            END
            $capture$
            """, schema: schema)
        try connection.execute("REVOKE ALL ON FUNCTION \(SQL.schema).\(id: "_tm_capture")() FROM PUBLIC", schema: schema)
    }

    /// Runs `body` in a transaction with `citus.enable_unsafe_triggers` on (`SET LOCAL`).
    func withUnsafeTriggers(_ body: () throws -> Void) throws {
        try connection.execute("BEGIN")
        do {
            try connection.execute("SET LOCAL citus.enable_unsafe_triggers = on")
            try body()
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The colocation groups of `schema`'s distributed tables.
    func colocationGroups(of schema: String) throws -> Set<Int> {
        Set(try connection.execute("""
            SELECT p.colocationid FROM pg_catalog.pg_dist_partition p JOIN pg_catalog.pg_class c ON c.oid = p.logicalrelid
            WHERE c.relnamespace = \(bind: .text(schema))::regnamespace
            """, schema: schema).map { try $0.decode(Int.self, at: 0) })
    }

    /// The shard of the single-shard table `table` of `schema`.
    func shardID(of table: String, in schema: String) throws -> Int {
        try connection.execute("SELECT shardid::int FROM pg_catalog.pg_dist_shard WHERE logicalrelid = \(qualifiedNameLiteral: table)::regclass", schema: schema)
            .first!.decode(Int.self, at: 0)
    }

    /// The name of `table`'s shard on its worker (`recipe_102008`).
    func shardName(of table: String, in schema: String) throws -> String {
        try connection.execute("SELECT pg_catalog.split_part(shard_name::text, '.', 2) FROM citus_shards WHERE table_name = \(qualifiedNameLiteral: table)::regclass", schema: schema)
            .first!.decode(String.self, at: 0)
    }

    /// The port of the worker that holds `schema`'s tables.
    func workerPort(of schema: String) throws -> Int {
        try connection.execute("""
            SELECT DISTINCT s.nodeport FROM citus_shards s JOIN pg_catalog.pg_class c ON c.oid = s.table_name
            WHERE c.relnamespace = \(bind: .text(schema))::regnamespace
            """, schema: schema).first!.decode(Int.self, at: 0)
    }
}
