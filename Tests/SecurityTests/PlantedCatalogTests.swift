import LibPQ
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// A role that may create schemas (as app roles of schema-per-tenant frameworks often may) makes
/// the catalog's schema before the migrator does, with tables of the catalog's shape and a trigger:
/// the migrator must not write into it, or the trigger runs with the migrator's rights.
@Suite("A catalog another role made")
struct PlantedCatalogTests {
    /// The catalog's tables as the migrator would make them, made by the attacker, with a trigger
    /// on each that records who fired it.
    static let plantedCatalog: [String] = [
        "CREATE SCHEMA tenant_migrator",
        "CREATE TABLE tenant_migrator.catalog_info (key text PRIMARY KEY, value text NOT NULL)",
        "INSERT INTO tenant_migrator.catalog_info VALUES ('catalog_version', '2')",
        """
        CREATE TABLE tenant_migrator.tenants (
            name text PRIMARY KEY, schema_name text NOT NULL UNIQUE, family text NOT NULL, version text NOT NULL,
            version_hash text NOT NULL, state text NOT NULL DEFAULT 'ready', last_error text,
            created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
            pinned_version text, pinned_at timestamptz, pinned_reason text)
        """,
        """
        CREATE TABLE tenant_migrator.migration_history (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, tenant text NOT NULL, family text NOT NULL,
            operation text NOT NULL, from_version text, to_version text, started_at timestamptz NOT NULL,
            finished_at timestamptz NOT NULL DEFAULT clock_timestamp(), outcome text NOT NULL, error text,
            sqlstate text, statistics jsonb NOT NULL DEFAULT '{}')
        """,
        "CREATE TABLE tenant_migrator.loot (who text)",
        """
        CREATE FUNCTION tenant_migrator.steal() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO tenant_migrator.loot VALUES (current_user); RETURN NEW; END $$
        """,
        "CREATE TRIGGER steal BEFORE INSERT OR UPDATE ON tenant_migrator.tenants FOR EACH ROW EXECUTE FUNCTION tenant_migrator.steal()",
        "CREATE TRIGGER steal BEFORE INSERT ON tenant_migrator.migration_history FOR EACH ROW EXECUTE FUNCTION tenant_migrator.steal()",
        "GRANT USAGE ON SCHEMA tenant_migrator TO PUBLIC",
        "GRANT ALL ON ALL TABLES IN SCHEMA tenant_migrator TO PUBLIC",
    ]

    @Test func aCatalogSchemaAnotherRoleOwnsIsRefusedBeforeAnyWrite() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try setup.adminConnection()
            try admin.execute(Statement(unsafeSQL: "GRANT CREATE ON DATABASE \(admin.quoteIdentifier(setup.database)) TO \(admin.quoteIdentifier(setup.attacker.role))"))
            let attacker = try setup.attacker.connect()
            for statement in Self.plantedCatalog { try attacker.execute(Statement(unsafeSQL: statement)) }

            for arguments in [["tenant", "create", "a1", "--version", "v1"], ["migrate", "--all"], ["status"], ["tenant", "list"]] {
                let error = await tenantMigrateError(setup.migrator.url, arguments)
                let message = "\(error.map { "\($0)" } ?? "no error")"
                #expect(message.contains("tenant_migrator") && message.contains(setup.attacker.role), "\(arguments): \(message)")
            }
            #expect(try admin.scalar("SELECT count(*)::int FROM tenant_migrator.loot", as: Int.self) == 0, "the planted trigger ran")
            #expect(try admin.scalar("SELECT count(*)::int FROM tenant_migrator.tenants", as: Int.self) == 0)
            #expect(try admin.scalar("SELECT count(*)::int FROM pg_namespace WHERE nspname = 'tenant_a1'", as: Int.self) == 0)
        }
    }

    @Test func aTableOrTriggerAnotherRolePutInTheMigratorsCatalogIsRefused() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "a1", "--version", "v1"]) == 0)
            let admin = try setup.adminConnection()
            let migrator = try setup.migrator.connect()
            // The migrator (by mistake, or a script) let others create in its catalog; the attacker
            // adds a trigger through the TRIGGER right on the tenants table.
            try migrator.execute(Statement(unsafeSQL: "GRANT CREATE, USAGE ON SCHEMA tenant_migrator TO \(admin.quoteIdentifier(setup.attacker.role))"))
            try migrator.execute(Statement(unsafeSQL: "GRANT TRIGGER, INSERT ON tenant_migrator.tenants TO \(admin.quoteIdentifier(setup.attacker.role))"))
            let attacker = try setup.attacker.connect()
            try attacker.execute("CREATE TABLE tenant_migrator.loot (who text)")
            try attacker.execute("GRANT ALL ON tenant_migrator.loot TO PUBLIC")
            try attacker.execute("""
                CREATE FUNCTION tenant_migrator.steal() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO tenant_migrator.loot VALUES (current_user); RETURN NEW; END $$
                """)
            try attacker.execute("CREATE TRIGGER steal BEFORE INSERT OR UPDATE ON tenant_migrator.tenants FOR EACH ROW EXECUTE FUNCTION tenant_migrator.steal()")

            for arguments in [["tenant", "create", "b1", "--version", "v1"], ["migrate", "--all"]] {
                let error = await tenantMigrateError(setup.migrator.url, arguments)
                let message = "\(error.map { "\($0)" } ?? "no error")"
                #expect(message.contains("tenant_migrator") && message.contains("steal"), "\(arguments): \(message)")
            }
            #expect(try admin.scalar("SELECT count(*)::int FROM tenant_migrator.loot", as: Int.self) == 0, "the planted trigger ran")
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 'a1'", as: String.self) == "v1")
        }
    }
}
