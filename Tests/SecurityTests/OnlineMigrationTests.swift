import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Online migrations with a least-privilege migrator: the change log, the shadow, the state and
/// the retired tables are the migrator's alone; the app role can neither read nor write them, nor
/// switch the capture off, nor make the capture run code of its own.
@Suite("Online migrations keep the app role out")
struct OnlineMigrationTests {
    /// One statement as the app role, and the SQLSTATE it failed with (nil when it succeeded).
    static func attempt(_ sql: String, on app: Connection) -> String? {
        do {
            _ = try app.execute(unsafeSQL: sql)
            return nil
        } catch let error as PQError {
            return error.sqlState?.rawValue ?? "no SQLSTATE"
        } catch {
            return "\(error)"
        }
    }

    @Test func theAppRoleCannotTouchTheChangeLogTheShadowOrTheCapture() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await setup.recipesTenant(recipes: 30)
            let oid = try admin.scalar("SELECT oid::int8 FROM pg_namespace WHERE nspname = 'tenant_t'", as: Int64.self)
            let work = "\"_tm_online_\(oid)\"", retired = "\"_tm_retired_\(oid)\""
            let appURL = setup.app.url

            let refusals = Locked<[String: String?]>([:])
            let tempLog = Locked<Int?>(nil)
            var migrator = try makeRecipesMigrator(setup.migrator.url)
            migrator.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .built, refusals.value.isEmpty else { return }
                let app = try Connection(appURL, logger: quietLogger)
                try app.setSearchPath(["tenant_t"])
                var results: [String: String?] = [:]
                for sql in [
                    "SELECT count(*) FROM \(work)._tm_change_log",
                    "INSERT INTO \(work)._tm_change_log VALUES ('recipe', '{1}', true)",
                    "DELETE FROM \(work)._tm_change_log",
                    "SELECT count(*) FROM \(work).recipe",
                    "UPDATE \(work).recipe SET name = 'x'",
                    "SELECT * FROM \(work)._tm_online_state",
                    "CREATE TABLE \(work).planted (id int)",
                    "SELECT \(work)._tm_capture()",
                    "ALTER TABLE tenant_t.recipe DISABLE TRIGGER _tm_online_capture",
                    "DROP TRIGGER _tm_online_capture ON tenant_t.recipe",
                    "ALTER FUNCTION \(work)._tm_capture() SECURITY INVOKER",
                ] {
                    results[sql] = Self.attempt(sql, on: app)
                }
                // A table of the log's name in the app's own temporary schema does not catch its
                // changes: the capture names the log with its schema.
                try app.execute("CREATE TEMPORARY TABLE _tm_change_log (relation text, key int8[], direct boolean)")
                try app.execute("UPDATE recipe SET name = 'changed while migrating' WHERE id = 1")
                tempLog.withLock { $0 = try? app.scalar("SELECT count(*)::int FROM pg_temp._tm_change_log", as: Int.self) }
                refusals.withLock { $0 = results }
            }
            let result = try await migrator.migrate(tenant: "t", .migrate(to: "v3", online: .on))
            #expect(result.outcome == .migrated)
            #expect(!refusals.value.isEmpty, "the checkpoint never ran")
            for (sql, state) in refusals.value.sorted(by: { $0.key < $1.key }) {
                #expect(state == "42501", "as the app role: \(sql) → \(state ?? "succeeded")")
            }
            #expect(tempLog.value == 0)
            #expect(try admin.scalar("SELECT name FROM tenant_t.recipe WHERE id = 1", as: String.self) == "changed while migrating")

            // The capture function, while it existed, ran as the migrator with a fixed search_path,
            // and nobody but the migrator could call it; after the cutover it is gone.
            #expect(try admin.scalar("SELECT count(*)::int FROM pg_proc WHERE proname = '_tm_capture'", as: Int.self) == 0)

            // After the cutover: the app uses every table of v3 (the new ones by the schema's
            // default privileges), and none of the migrator's own.
            let app = try setup.app.connect()
            try app.setSearchPath(["tenant_t"])
            for table in ["recipe", "recipe_ingredient", "ingredient", "unit_of_measure"] {
                #expect(Self.attempt("SELECT count(*) FROM \(table)", on: app) == nil, "the app cannot read \(table)")
                #expect(Self.attempt("UPDATE \(table) SET id = id WHERE false", on: app) == nil, "the app cannot write \(table)")
            }
            #expect(Self.attempt("SELECT count(*) FROM _tm_archive", on: app) == "42501")
            #expect(Self.attempt("SELECT count(*) FROM \(retired).recipe", on: app) == "42501")
            #expect(Self.attempt("INSERT INTO recipe (name) VALUES ('after the cutover')", on: app) == nil)
        }
    }

    /// The app binds a temporary view to a live table before the cutover; afterwards the view
    /// points at the retired table, on which the app keeps no right.
    @Test func theAppKeepsNoRightOnTheTablesACutoverRetires() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await setup.recipesTenant(recipes: 10)
            let app = try setup.app.connect()
            try app.execute("CREATE TEMPORARY VIEW old_recipe AS SELECT * FROM tenant_t.recipe")
            #expect(Self.attempt("SELECT count(*) FROM old_recipe", on: app) == nil)

            let result = try await makeRecipesMigrator(setup.migrator.url).migrate(tenant: "t", .migrate(to: "v3", online: .on))
            #expect(result.outcome == .migrated)
            #expect(result.online.map { $0.mode != "offline" } == true)
            let oid = try admin.scalar("SELECT oid::int8 FROM pg_namespace WHERE nspname = 'tenant_t'", as: Int64.self)
            let retiredRecipes = "SELECT id || ' ' || name FROM \"_tm_retired_\(oid)\".recipe ORDER BY id"
            let before: [String] = try admin.column(retiredRecipes)
            for sql in [
                "SELECT count(*) FROM old_recipe",
                "UPDATE old_recipe SET name = 'renamed after the cutover' WHERE id = (SELECT min(id) FROM tenant_t.recipe)",
                "DELETE FROM old_recipe WHERE id = (SELECT max(id) FROM tenant_t.recipe)",
                "INSERT INTO old_recipe (name, type) VALUES ('planted after the cutover', 'Other')",
            ] {
                #expect(Self.attempt(sql, on: app) == "42501", "as the app role, through its view of a retired table: \(sql)")
            }
            #expect(try admin.column(retiredRecipes, as: String.self) == before)
            let grants: [String] = try admin.column("""
                SELECT c.relname || ' ' || a.privilege_type || ' to ' || CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_get_userbyid(a.grantee)::text END
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, aclexplode(c.relacl) a
                WHERE n.nspname = $1 AND a.grantee <> c.relowner ORDER BY 1
                """, ["_tm_retired_\(oid)"])
            #expect(grants.isEmpty, "rights left on the retired tables: \(grants)")
        }
    }

    @Test func theCaptureFunctionRunsAsTheMigratorWithAFixedSearchPath() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            try await setup.recipesTenant(recipes: 5)
            let seen = Locked<[String]>([])
            var migrator = try makeRecipesMigrator(setup.migrator.url)
            let adminURL = setup.adminURL
            migrator.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .prepared else { return }
                let admin = try Connection(adminURL, logger: quietLogger)
                seen.withLock {
                    $0 = (try? admin.column("""
                        SELECT proname || ' definer=' || prosecdef || ' config=' || array_to_string(proconfig, ',') || ' owner=' || pg_get_userbyid(proowner)
                               || ' public=' || has_function_privilege('public', oid, 'EXECUTE')
                        FROM pg_proc WHERE proname IN ('_tm_capture', '_tm_truncated') ORDER BY 1
                        """, as: String.self)) ?? []
                }
            }
            _ = try await migrator.migrate(tenant: "t", .migrate(to: "v3", online: .on))
            #expect(seen.value == [
                "_tm_capture definer=true config=search_path=pg_catalog, pg_temp owner=\(setup.migrator.role) public=false",
                "_tm_truncated definer=true config=search_path=pg_catalog, pg_temp owner=\(setup.migrator.role) public=false",
            ])
        }
    }
}
