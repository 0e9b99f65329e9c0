import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// Attacks by the app's role on a tenant adopted from a framework whose tables it owns, beyond
/// those of ``AppOwnedTablesTests``: nothing it does to its tables may run its code with the
/// migrator's rights (docs/Security.md).
@Suite("Attacks on app-owned tables")
struct AttackTests {
    /// The shop whose v2 keeps the note, so that every statement of the way up is allowed on a
    /// partition too.
    static func family() throws -> URL { try shopFamily(keepingTheNote: true) }

    /// The app attaches its adopted table as a partition of a table of its own partitioned by an
    /// expression calling its code: every row the migration writes in the partition is checked
    /// against the partition's bound, which evaluates that expression with the migrator's rights
    /// (it ran as the superuser with the UPDATE of the way up). The model defines no inheritance,
    /// so the tenant is refused (42501, naming the parent) before anything is written.
    @Test func aTenantTableAttachedAsAPartitionIsRefused() async throws {
        try await LeastPrivilegeDatabase.withAdoptedShop(Self.family) { setup, admin, app, migrations in
            try app.execute("""
                CREATE FUNCTION appcode.one(text) RETURNS integer LANGUAGE plpgsql IMMUTABLE AS $f$
                BEGIN PERFORM appcode.spy(); RETURN 1; END $f$
                """)
            try app.execute("CREATE TABLE appcode.parent (id bigint NOT NULL, name text, note text) PARTITION BY LIST (appcode.one(name))")
            try app.execute("ALTER TABLE appcode.parent ATTACH PARTITION shop.item FOR VALUES IN (1)")
            try admin.execute("TRUNCATE public.pwned")

            await expectRefused(setup.adminURL, ["migrate", "--tenant", "t"], migrations: migrations.path, naming: ["appcode.parent", setup.app.role, "shop.item", "42501"])
            try expectShopUntouched(admin)
        }
    }

    /// The app renames its adopted table and puts a view of the same name in its place whose
    /// column calls its code. A migration refuses it (the view uses an untrusted function), but a
    /// rehearsal (`--rehearse`) took its snapshot of the tables' rows before that check, reading
    /// the view, so the code ran with the migrator's rights first (a superuser's function can act
    /// outside the transaction the rehearsal rolls back). The evidence is a sequence, which no
    /// rollback takes back. The rehearsal is refused before it reads anything.
    @Test func aRehearsalReadsNoRowBeforeTheTenantIsJudged() async throws {
        try await LeastPrivilegeDatabase.withAdoptedShop(Self.family) { setup, admin, app, migrations in
            try app.execute("CREATE SEQUENCE appcode.foreign_runs")
            try app.execute("GRANT USAGE ON SEQUENCE appcode.foreign_runs TO PUBLIC")
            try app.execute(unsafeSQL: """
                CREATE FUNCTION appcode.spy_name(text) RETURNS text LANGUAGE plpgsql STABLE AS $f$
                BEGIN IF current_user <> \(app.quoteLiteral(setup.app.role)) THEN PERFORM pg_catalog.nextval('appcode.foreign_runs'); END IF; RETURN $1; END $f$
                """)
            try app.execute("ALTER TABLE shop.item RENAME TO item_data")
            try app.execute("CREATE VIEW shop.item AS SELECT id, appcode.spy_name(name) AS name, note FROM shop.item_data")

            await expectRefused(setup.adminURL, ["migrate", "--tenant", "t", "--rehearse"], migrations: migrations.path, naming: ["appcode.spy_name", setup.app.role, "42501"])
            #expect(try admin.scalar("SELECT is_called::text FROM appcode.foreign_runs", as: String.self) == "false")
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v1")
        }
    }

    /// A migrator that is a member of the app's role (`GRANT app TO migrator`, so that it may alter
    /// the app's tables) trusts what that role owns in its catalog. The app, which may create
    /// schemas, made the catalog first, with a check on `tenants` calling its own function: the
    /// migrator's first write of the catalog ran the app's code with the migrator's rights (the
    /// owner of every tenant it created). A constraint, default or index of the catalog that uses
    /// a function owned by a role other than a superuser and the migrator is refused, nothing
    /// written.
    @Test func aCheckTheAppPutOnThePlantedCatalogOfAMemberMigratorIsRefused() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try setup.adminConnection()
            _ = try UntrustedCodeTests.createEvidenceTable(setup)
            try admin.execute(unsafeSQL: "GRANT CREATE ON DATABASE \(admin.quoteIdentifier(setup.database)) TO \(admin.quoteIdentifier(setup.app.role))")
            try admin.execute(unsafeSQL: "GRANT \(admin.quoteIdentifier(setup.app.role)) TO \(admin.quoteIdentifier(setup.migrator.role))")
            let app = try setup.app.connect()
            for statement in PlantedCatalogTests.plantedCatalog.prefix(5) { try app.execute(unsafeSQL: statement) }
            try app.execute("CREATE SCHEMA appcode")
            try app.execute("""
                CREATE FUNCTION appcode.spy() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $f$
                BEGIN INSERT INTO public.pwned VALUES (current_user, 'spy'); RETURN true; END $f$
                """)
            try app.execute("GRANT USAGE ON SCHEMA appcode TO PUBLIC")
            try app.execute("ALTER TABLE tenant_migrator.tenants ADD CONSTRAINT spied CHECK (appcode.spy())")

            await expectRefused(setup.migrator.url, ["tenant", "create", "a1", "--version", "v1"], naming: ["tenant_migrator", "spied", "appcode.spy", setup.app.role])
            #expect(try admin.column("SELECT who || ' ran ' || what FROM public.pwned", as: String.self).isEmpty)
            #expect(try admin.scalar("SELECT count(*)::int FROM tenant_migrator.tenants", as: Int.self) == 0)
        }
    }
}
