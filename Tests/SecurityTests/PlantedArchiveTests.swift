import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// The archive (`_tm_archive`) is used only when it is the migrator's own table: a view, or a
/// table of another role's, planted under its name by a role with CREATE on the tenant's schema,
/// is refused by name, kind and owner, and none of its code runs.
@Suite("An object planted as the archive is refused")
struct PlantedArchiveTests {
    /// What the planted code leaves behind, whoever runs it: `public.spy_calls` counts its calls
    /// (a sequence: what `nextval` took survives a rolled-back transaction), and it tries to make
    /// the app role a superuser.
    struct Spy {
        let setup: LeastPrivilegeDatabase

        /// Creates the evidence (as the attacker, in `public`) and gives the app role CREATE on
        /// `tenant_t`: the right the docs call untrusted.
        static func plant(_ setup: LeastPrivilegeDatabase) throws -> Spy {
            let attacker = try setup.attacker.connect()
            try attacker.execute("CREATE SEQUENCE public.spy_calls")
            try attacker.execute("GRANT USAGE, SELECT, UPDATE ON SEQUENCE public.spy_calls TO PUBLIC")
            let migrator = try setup.migrator.connect()
            try migrator.execute(unsafeSQL: "GRANT CREATE ON SCHEMA tenant_t TO \(migrator.quoteIdentifier(setup.app.role))")
            let app = try setup.app.connect()
            try app.execute(unsafeSQL: """
                CREATE FUNCTION tenant_t.spy() RETURNS bigint LANGUAGE plpgsql AS $f$
                BEGIN
                    PERFORM pg_catalog.nextval('public.spy_calls');
                    BEGIN
                        EXECUTE pg_catalog.format('ALTER ROLE %I SUPERUSER', \(app.quoteLiteral(setup.app.role)));
                    EXCEPTION WHEN insufficient_privilege THEN NULL;
                    END;
                    RETURN 1;
                END $f$
                """)
            try app.execute("""
                CREATE FUNCTION tenant_t.spy_trigger() RETURNS trigger LANGUAGE plpgsql AS $f$
                BEGIN PERFORM tenant_t.spy(); RETURN NULL; END $f$
                """)
            return Spy(setup: setup)
        }

        /// A view named `_tm_archive`, with the archive's columns, whose reading and any write
        /// through it run the spy.
        func plantView(on app: Connection) throws {
            try app.execute("""
                CREATE VIEW tenant_t._tm_archive AS
                SELECT 'v2'::text AS step_from, 'v3'::text AS step_to, 'recipe'::text AS table_name, 'type'::text AS column_name,
                       tenant_t.spy() AS row_id, NULL::text AS value, NULL::text AS left_value, false AS compares,
                       pg_catalog.now() - interval '1 year' AS archived_at
                """)
            try app.execute("""
                CREATE TRIGGER spy INSTEAD OF INSERT OR UPDATE OR DELETE ON tenant_t._tm_archive
                FOR EACH ROW EXECUTE FUNCTION tenant_t.spy_trigger()
                """)
            try app.execute("GRANT ALL ON tenant_t._tm_archive TO PUBLIC")
        }

        /// The spy never ran, as anyone, and the app role is no superuser.
        func expectNeverRan(_ comment: Comment? = nil) throws {
            let admin = try setup.adminConnection()
            #expect(try admin.scalar("SELECT is_called FROM public.spy_calls", as: Bool.self) == false, comment)
            #expect(try admin.scalar("SELECT rolsuper FROM pg_roles WHERE rolname = $1", [setup.app.role], as: Bool.self) == false, comment)
        }
    }

    /// `error` names the tenant's archive as a view owned by the app role.
    static func expectRefusal(_ error: (any Error)?, _ setup: LeastPrivilegeDatabase, _ comment: Comment) {
        let text = error.map { "\($0)" } ?? "no error"
        #expect(text.contains("_tm_archive") && text.contains("view") && text.contains(setup.app.role), "\(comment): \(text)")
    }

    @Test func aViewNamedLikeTheArchiveIsRefusedByEveryCommand() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await setup.recipesTenant(recipes: 20)
            let spy = try Spy.plant(setup)
            try spy.plantView(on: try setup.app.connect())

            let migrator = try makeRecipesMigrator(setup.migrator.url)
            var refusal: (any Error)?
            do { _ = try await migrator.migrate(tenant: "t", .migrate(to: "v3")) } catch { refusal = error }
            Self.expectRefusal(refusal, setup, "migrate")
            refusal = nil
            do { _ = try await migrator.migrate(tenant: "t", .migrate(to: "v3", mode: .dryRun)) } catch { refusal = error }
            Self.expectRefusal(refusal, setup, "migrate --dry-run")
            refusal = nil
            do { _ = try await migrator.archiveUsage(tenant: "t") } catch { refusal = error }
            Self.expectRefusal(refusal, setup, "archive list")
            refusal = nil
            do { _ = try await migrator.prune(olderThan: .seconds(0), tenant: "t") } catch { refusal = error }
            Self.expectRefusal(refusal, setup, "archive prune")
            #expect(await tenantMigrateError(setup.migrator.url, ["archive", "list", "--tenant", "t"]) != nil)

            try spy.expectNeverRan()
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v2")
            #expect(try admin.scalar("SELECT relkind::text FROM pg_class WHERE oid = 'tenant_t._tm_archive'::regclass", as: String.self) == "v")
        }
    }

    /// An online run refuses a tenant schema another role may create in, before anything. When
    /// such a right appears only while the run copies (granted by a superuser, say), and a view
    /// appears under the archive's name, the run reads the live archive only after checking it,
    /// and fails, leaving the tenant where it was.
    @Test func aViewPlantedWhileAnOnlineRunCopiesIsRefused() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await setup.recipesTenant(recipes: 20)
            let spy = try Spy.plant(setup)
            var refusal: (any Error)?
            do { _ = try await makeRecipesMigrator(setup.migrator.url).migrate(tenant: "t", .migrate(to: "v3", online: .on)) } catch { refusal = error }
            let text = refusal.map { "\($0)" } ?? "no error"
            #expect(text.contains("cannot migrate online") && text.contains(setup.app.role) && text.contains("tenant_t"), "\(text)")
            try admin.execute(unsafeSQL: "REVOKE CREATE ON SCHEMA tenant_t FROM \(admin.quoteIdentifier(setup.app.role))")

            let appURL = setup.app.url, adminURL = setup.adminURL, appRole = setup.app.role
            let planted = Locked(false)
            var migrator = try makeRecipesMigrator(setup.migrator.url)
            migrator.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .prepared || checkpoint.phase == .copying, planted.withLock({ done in defer { done = true }; return !done }) else { return }
                let admin = try Connection(adminURL, logger: quietLogger)
                try admin.execute(unsafeSQL: "GRANT CREATE ON SCHEMA tenant_t TO \(admin.quoteIdentifier(appRole))")
                try spy.plantView(on: try Connection(appURL, logger: quietLogger))
            }
            refusal = nil
            do { _ = try await migrator.migrate(tenant: "t", .migrate(to: "v3", online: .on)) } catch { refusal = error }
            #expect(planted.value)
            Self.expectRefusal(refusal, setup, "migrate --online")
            try spy.expectNeverRan()
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v2")
        }
    }
}
