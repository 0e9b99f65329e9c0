import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// Tenant app roles are untrusted: nothing they create, in their schema or in `public`, runs with
/// the migrator's rights (docs/Security.md).
@Suite("Untrusted code never runs as the migrator")
struct UntrustedCodeTests {
    /// The attacker's evidence table: anyone may write to it, so planted code can leave a mark.
    static func createEvidenceTable(_ setup: LeastPrivilegeDatabase) throws -> Connection {
        let attacker = try setup.attacker.connect()
        try attacker.execute("CREATE TABLE public.pwned (who text, what text)")
        try attacker.execute("GRANT INSERT, SELECT ON public.pwned TO PUBLIC")
        return attacker
    }

    @Test func aFunctionPlantedInPublicIsNeverCalled() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await setup.recipesTenant(recipes: 20)
            let attacker = try Self.createEvidenceTable(setup)
            // Functions that a better match in `public` would capture under the default search_path:
            // nextval(text) beats pg_catalog.nextval(regclass) for a text argument.
            for (name, signature, body) in [
                ("nextval", "text", "RETURN pg_catalog.nextval($1::regclass);"),
                ("lower", "text", "RETURN pg_catalog.lower($1);"),
                ("hashtext", "text", "RETURN pg_catalog.hashtext($1);"),
            ] {
                let returns = name == "nextval" ? "bigint" : (name == "hashtext" ? "integer" : "text")
                try attacker.execute(unsafeSQL: """
                    CREATE FUNCTION public.\(name)(\(signature)) RETURNS \(returns) LANGUAGE plpgsql AS $f$
                    BEGIN INSERT INTO public.pwned VALUES (current_user, '\(name)'); \(body) END $f$
                    """)
            }

            #expect(try await runTenantMigrate(setup.migrator.url, ["migrate", "--tenant", "t"]) == 0)
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v3")
            #expect(try admin.scalar("SELECT count(*)::int FROM tenant_t.ingredient", as: Int.self) > 0)
            let marks: [String] = try admin.column("SELECT who || ' ran ' || what FROM public.pwned")
            #expect(marks.isEmpty, "planted functions ran: \(marks)")
        }
    }

    @Test func aTenantRolesTriggerDoesNotFireDuringTheMigrationAndStaysInPlace() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await setup.recipesTenant(recipes: 20)
            _ = try Self.createEvidenceTable(setup)
            // The configuration the issue found: the app role may create objects in its schema and
            // triggers on its tables. (The least-privilege setup grants neither.)
            let migrator = try setup.migrator.connect()
            try migrator.execute(unsafeSQL: "GRANT CREATE ON SCHEMA tenant_t TO \(migrator.quoteIdentifier(setup.app.role))")
            try migrator.execute(unsafeSQL: "GRANT TRIGGER ON tenant_t.recipe TO \(migrator.quoteIdentifier(setup.app.role))")
            let app = try setup.app.connect()
            try app.execute("""
                CREATE FUNCTION tenant_t.spy() RETURNS trigger LANGUAGE plpgsql AS $f$
                BEGIN INSERT INTO public.pwned VALUES (current_user, TG_OP); RETURN NULL; END $f$
                """)
            try app.execute("CREATE TRIGGER spy AFTER UPDATE ON tenant_t.recipe FOR EACH ROW EXECUTE FUNCTION tenant_t.spy()")

            // v2 → v3 updates recipe rows in place (Meat and Fish become Entrée).
            #expect(try await runTenantMigrate(setup.migrator.url, ["migrate", "--tenant", "t"]) == 0)
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v3")
            #expect(try admin.scalar("SELECT count(*)::int FROM tenant_t.recipe WHERE type = 'Entrée'", as: Int.self) > 0)
            let marks: [String] = try admin.column("SELECT who || ' ' || what FROM public.pwned")
            #expect(marks.isEmpty, "the tenant's trigger fired during the migration: \(marks)")

            // The archive of what v2 → v3 overwrote (Meat and Fish) is the migrator's alone, whatever
            // the schema's default privileges grant the app role.
            #expect(try admin.scalar("SELECT count(*)::int FROM tenant_t._tm_archive", as: Int.self) > 0)
            #expect(throws: PQError.self) { try app.execute("SELECT count(*) FROM tenant_t._tm_archive") }

            // The trigger is back as it was: enabled, and the app's own updates fire it.
            #expect(try admin.scalar("SELECT tgenabled::text FROM pg_trigger WHERE tgname = 'spy'", as: String.self) == "O")
            try app.execute("UPDATE tenant_t.recipe SET servings = servings WHERE id = (SELECT min(id) FROM tenant_t.recipe)")
            #expect(try admin.column("SELECT who FROM public.pwned", as: String.self) == [setup.app.role])
        }
    }

    @Test func anAdministratorCreatesTenantsOwnedByTheMigrator() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try setup.adminConnection()
            // The catalog belongs to the migrator: it installs it.
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "first", "--version", "v1"]) == 0)
            // A superuser provisions a tenant; its objects go to the migrator, which migrates it later.
            #expect(try await runTenantMigrate(setup.adminURL, ["tenant", "create", "t", "--version", "v1", "--owner", setup.migrator.role, "--app-role", setup.app.role]) == 0)
            let owners: [String] = try admin.column("""
                SELECT DISTINCT pg_get_userbyid(c.relowner)::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'tenant_t'
                UNION SELECT pg_get_userbyid(nspowner)::text FROM pg_namespace WHERE nspname = 'tenant_t'
                """)
            #expect(owners == [setup.migrator.role])
            #expect(try await runTenantMigrate(setup.migrator.url, ["migrate", "--tenant", "t"]) == 0)
            let app = try setup.app.connect()
            try app.execute("INSERT INTO tenant_t.ingredient (name) VALUES ('Salt')")
        }
    }

    @Test func theAppRoleCanUseItsTablesButNotCreateObjectsOrTouchTheCatalog() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t", "--version", "v2", "--app-role", setup.app.role]) == 0)
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "u", "--version", "v2"]) == 0)
            let app = try setup.app.connect()
            try app.execute("INSERT INTO tenant_t.recipe (name, type) VALUES ('Soup', 'Other')")
            #expect(try app.scalar("SELECT count(*)::int FROM tenant_t.recipe", as: Int.self) == 1)

            #expect(throws: PQError.self) { try app.execute("CREATE TABLE tenant_t.extra (id int)") }
            #expect(throws: PQError.self) { try app.execute("CREATE FUNCTION tenant_t.f() RETURNS int LANGUAGE sql AS 'SELECT 1'") }
            #expect(throws: PQError.self) {
                try app.execute("CREATE TRIGGER x AFTER UPDATE ON tenant_t.recipe FOR EACH ROW EXECUTE FUNCTION pg_catalog.suppress_redundant_updates_trigger()")
            }
            #expect(throws: PQError.self) { try app.execute("SELECT count(*) FROM tenant_u.recipe") }
            #expect(throws: PQError.self) { try app.execute("UPDATE tenant_migrator.tenants SET version = 'v1'") }
            #expect(throws: PQError.self) { try app.execute("INSERT INTO tenant_migrator.migration_history (tenant) VALUES ('t')") }

            // Tables a later migration adds are granted too (default privileges).
            #expect(try await runTenantMigrate(setup.migrator.url, ["migrate", "--tenant", "t"]) == 0)
            try app.execute("INSERT INTO tenant_t.ingredient (name) VALUES ('Salt')")
            #expect(try app.scalar("SELECT count(*)::int FROM tenant_t.ingredient", as: Int.self) == 1)
        }
    }
}

/// `verify` reports every object in a tenant schema that the model does not define.
@Suite("Verify reports foreign objects")
struct ForeignObjectTests {
    @Test func everyKindOfForeignObjectIsReportedByName() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t", "--version", "v2", "--app-role", setup.app.role]) == 0)
            let migrator = try makeRecipesMigrator(setup.migrator.url)
            #expect(try await migrator.verify().allSatisfy(\.isClean))

            let admin = try setup.adminConnection()
            try admin.fixtureScript("""
                CREATE FUNCTION tenant_t.audit() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN RETURN NULL; END $f$;
                CREATE TRIGGER audit AFTER UPDATE ON tenant_t.recipe FOR EACH ROW EXECUTE FUNCTION tenant_t.audit();
                CREATE VIEW tenant_t.meat AS SELECT * FROM tenant_t.recipe WHERE type = 'Meat';
                CREATE SEQUENCE tenant_t.counter;
                ALTER TABLE tenant_t.recipe ENABLE ROW LEVEL SECURITY;
                CREATE POLICY only_mine ON tenant_t.recipe USING (true);
                CREATE RULE no_delete AS ON DELETE TO tenant_t.recipe_ingredient DO INSTEAD NOTHING;
                CREATE TYPE tenant_t.mood AS ENUM ('happy', 'sad');
                CREATE DOMAIN tenant_t.positive AS int CHECK (VALUE > 0);
                CREATE SCHEMA elsewhere;
                CREATE TABLE elsewhere.old_recipe () INHERITS (tenant_t.recipe);
                CREATE TABLE elsewhere.base ();
                ALTER TABLE tenant_t.recipe_ingredient INHERIT elsewhere.base;
                GRANT CREATE ON SCHEMA tenant_t TO \(admin.quoteIdentifier(setup.app.role))
                """)
            let reports = try await migrator.verify()
            #expect(reports.count == 1)
            let found = Set((reports.first?.foreignObjects ?? []).map { "\($0.kind) \($0.name)" })
            let expected: Set<String> = [
                "function audit()", "trigger recipe.audit", "view meat", "sequence counter", "policy recipe.only_mine",
                "rule recipe_ingredient.no_delete", "type mood", "domain positive",
                "inheritance elsewhere.old_recipe inherits from recipe", "inheritance recipe_ingredient inherits from elsewhere.base",
                "privilege CREATE on the schema for \(setup.app.role)",
            ]
            #expect(found == expected)
            #expect(reports.first?.isClean == false)
            // The CLI exits 2 on drift.
            #expect(try await runTenantMigrate(setup.migrator.url, ["verify"]) == 2)
        }
    }
}
