import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// An online run's private schemas (`_tm_online_<oid>`, `_tm_retired_<oid>`) and the tenant's live
/// tables are used only while they are the migrator's: schemas made first under the run's names by
/// a role with CREATE on the database, or a tenant schema another role owns (and so may swap a
/// table for a view mid-run), are refused, and none of their code runs.
@Suite("Objects planted around an online run are refused")
struct PlantedOnlineObjectsTests {
    /// The app drops `tenant_t.recipe_ingredient` and puts in its place a view of the same columns
    /// whose `id` calls `tenant_t.spy()` (``spyFunction(_:appRole:on:)``).
    static func swapIngredientsForSpyView(on app: Connection) throws {
        try app.execute("DROP TABLE tenant_t.recipe_ingredient")
        try app.execute("""
            CREATE VIEW tenant_t.recipe_ingredient AS SELECT tenant_t.spy() AS id, 'salt'::text AS name, NULL::numeric AS quantity,
                NULL::text AS unit_of_measure, 1::int8 AS recipe_id
            """)
        try app.execute("GRANT ALL ON tenant_t.recipe_ingredient TO PUBLIC")
    }

    /// The planted code's mark: `public.spy_calls` counts its calls (a sequence: what `nextval`
    /// took survives a rolled-back transaction); it also tries to make the app role a superuser.
    static func spyFunction(_ schema: String, appRole: String, on connection: Connection) throws {
        try connection.execute(unsafeSQL: """
            CREATE FUNCTION \(schema).spy() RETURNS bigint LANGUAGE plpgsql AS $f$
            BEGIN
                PERFORM pg_catalog.nextval('public.spy_calls');
                BEGIN
                    EXECUTE pg_catalog.format('ALTER ROLE %I SUPERUSER', \(connection.quoteLiteral(appRole)));
                EXCEPTION WHEN insufficient_privilege THEN NULL;
                END;
                RETURN 1;
            END $f$
            """)
        try connection.execute(unsafeSQL: "GRANT EXECUTE ON FUNCTION \(schema).spy() TO PUBLIC")
    }

    static func createEvidence(_ setup: LeastPrivilegeDatabase) throws {
        let attacker = try setup.attacker.connect()
        try attacker.execute("CREATE SEQUENCE public.spy_calls")
        try attacker.execute("GRANT USAGE, SELECT, UPDATE ON SEQUENCE public.spy_calls TO PUBLIC")
    }

    static func expectSpyNeverRan(_ setup: LeastPrivilegeDatabase) throws {
        let admin = try setup.adminConnection()
        #expect(try admin.scalar("SELECT is_called FROM public.spy_calls", as: Bool.self) == false, "the planted code ran")
        #expect(try admin.scalar("SELECT rolsuper FROM pg_roles WHERE rolname = $1", [setup.app.role], as: Bool.self) == false)
    }

    static func expectRefusal(_ error: (any Error)?, naming names: [String], _ comment: Comment) {
        let text = error.map { "\($0)" } ?? "no error"
        #expect(names.allSatisfy { text.contains($0) }, "\(comment): \(text)")
    }

    @Test func privateSchemasMadeFirstByAnotherRoleAreRefused() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await setup.recipesTenant(recipes: 20)
            try Self.createEvidence(setup)
            try admin.execute(unsafeSQL: "GRANT CREATE ON DATABASE \(admin.quoteIdentifier(setup.database)) TO \(admin.quoteIdentifier(setup.attacker.role))")
            let oid = try admin.scalar("SELECT oid::int8 FROM pg_namespace WHERE nspname = 'tenant_t'", as: Int64.self)
            let work = "_tm_online_\(oid)", retired = "_tm_retired_\(oid)"
            // The OID is public: the attacker makes the run's schemas first, with views named like the run's tables.
            let attacker = try setup.attacker.connect()
            for schema in [work, retired] {
                try attacker.execute(unsafeSQL: "CREATE SCHEMA \(schema)")
                try attacker.execute(unsafeSQL: "GRANT USAGE ON SCHEMA \(schema) TO PUBLIC")
                try Self.spyFunction(schema, appRole: setup.app.role, on: attacker)
            }
            try attacker.execute(unsafeSQL: """
                CREATE VIEW \(work)._tm_online_state AS SELECT 'v2'::text AS from_version, 'v3'::text AS to_version, 'copying'::text AS phase,
                    1::int4 AS backend_pid, \(work).spy() AS rows_copied, pg_catalog.now()::text AS updated_at
                """)
            try attacker.execute(unsafeSQL: """
                CREATE VIEW \(retired)._tm_retired AS SELECT 'v1'::text AS version, 'v2'::text AS replaced_by,
                    pg_catalog.now() - interval '1 year' - (\(retired).spy() * interval '1 second') AS retired_at
                """)
            try attacker.execute(unsafeSQL: "GRANT ALL ON ALL TABLES IN SCHEMA \(work), \(retired) TO PUBLIC")

            let migrator = try makeRecipesMigrator(setup.migrator.url)
            var refusal: (any Error)?
            do { _ = try await migrator.prune(olderThan: .seconds(0), tenant: "t") } catch { refusal = error }
            Self.expectRefusal(refusal, naming: [retired, setup.attacker.role], "archive prune")
            refusal = nil
            do { _ = try await migrator.cleanUpOnlineMigrations(tenant: "t") } catch { refusal = error }
            Self.expectRefusal(refusal, naming: [work, setup.attacker.role], "online cleanup")
            refusal = nil
            do { _ = try await migrator.migrate(tenant: "t", .migrate(to: "v3", online: .on)) } catch { refusal = error }
            Self.expectRefusal(refusal, naming: [work, setup.attacker.role], "migrate --online")

            try Self.expectSpyNeverRan(setup)
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v2")
            #expect(try admin.scalar("SELECT count(*)::int FROM pg_namespace WHERE nspname IN ($1, $2)", [work, retired], as: Int.self) == 2)
        }
    }

    /// The app role owns the tenant's schema (the tables are the migrator's): it could drop a
    /// table while the run copies it and put a view of its own in its place. The run refuses the
    /// tenant before anything, naming the owner.
    @Test func aTenantSchemaAnotherRoleOwnsIsNotMigratedOnline() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await setup.recipesTenant(recipes: 20)
            try Self.createEvidence(setup)
            try admin.execute(unsafeSQL: "ALTER SCHEMA tenant_t OWNER TO \(admin.quoteIdentifier(setup.app.role))")
            let app = try setup.app.connect()
            try app.execute(unsafeSQL: "GRANT USAGE, CREATE ON SCHEMA tenant_t TO \(app.quoteIdentifier(setup.migrator.role))")
            try Self.spyFunction("tenant_t", appRole: setup.app.role, on: app)

            let appURL = setup.app.url
            let swapped = Locked(false)
            var migrator = try makeRecipesMigrator(setup.migrator.url)
            migrator.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .prepared, swapped.withLock({ done in defer { done = true }; return !done }) else { return }
                let app = try Connection(appURL, logger: quietLogger)
                try Self.swapIngredientsForSpyView(on: app)
            }
            var refusal: (any Error)?
            do { _ = try await migrator.migrate(tenant: "t", .migrate(to: "v3", online: .on)) } catch { refusal = error }
            Self.expectRefusal(refusal, naming: ["tenant_t", setup.app.role, "online"], "migrate --online")
            #expect(!swapped.value, "the run went on after its preconditions")
            try Self.expectSpyNeverRan(setup)
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v2")
            #expect(try admin.scalar("SELECT relkind::text FROM pg_class WHERE oid = 'tenant_t.recipe_ingredient'::regclass", as: String.self) == "r")
        }
    }

    /// What the preconditions checked is checked again under the cutover's locks: were the
    /// tenant's schema handed to the app mid-run (only a superuser can), and a live table swapped
    /// for the app's view, the cutover stops before it reads or moves anything, naming why.
    @Test func theCutoverChecksThePreconditionsAgainUnderItsLocks() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await setup.recipesTenant(recipes: 20)
            try Self.createEvidence(setup)
            let appURL = setup.app.url, adminURL = setup.adminURL, appRole = setup.app.role, migratorRole = setup.migrator.role
            let swapped = Locked(false)
            var migrator = try makeRecipesMigrator(setup.migrator.url, maxAttempts: 1)
            migrator.settings.online.checkpoint = { checkpoint in
                // No app writes: the first catch-up round is the last, and the cutover comes next.
                guard checkpoint.phase == .catchingUp, swapped.withLock({ done in defer { done = true }; return !done }) else { return }
                let admin = try Connection(adminURL, logger: quietLogger)
                try admin.execute(unsafeSQL: "ALTER SCHEMA tenant_t OWNER TO \(admin.quoteIdentifier(appRole))")
                let app = try Connection(appURL, logger: quietLogger)
                try app.execute(unsafeSQL: "GRANT USAGE, CREATE ON SCHEMA tenant_t TO \(app.quoteIdentifier(migratorRole))")
                try Self.spyFunction("tenant_t", appRole: appRole, on: app)
                try Self.swapIngredientsForSpyView(on: app)
            }
            var refusal: (any Error)?
            do { _ = try await migrator.migrate(tenant: "t", .migrate(to: "v3", online: .on)) } catch { refusal = error }
            #expect(swapped.value)
            Self.expectRefusal(refusal, naming: ["cannot migrate online", "tenant_t", setup.app.role], "the cutover")
            try Self.expectSpyNeverRan(setup)
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v2")
        }
    }
}
