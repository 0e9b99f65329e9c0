import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// A mapping model is trusted code, but the functions its expressions name are resolved when the
/// step runs: a planted better match (or a function an untrusted role owns) would run with the
/// migrator's rights, in the mapped step, or, through a proof by the way back, in the archive's
/// comparison on the way up (docs/Security.md, "Expressions of the mappings").
///
/// The setup is ``PlantedExpressionTests``': the administrator's helpers in `public`, where the
/// attacker may create objects; the attacker plants IMMUTABLE better matches that call a VOLATILE
/// logger (an IMMUTABLE function may call one, and the logger may write).
@Suite("Planted functions in the mappings' expressions")
struct PlantedMappingExpressionTests {
    /// Shop v1 (items with a name, a code and a state) and v2, which keeps the code's length
    /// instead of the code and adds a tag; `mappings` by file name (`v1-to-v2.yaml`).
    static func family(mappings: [String: String]) throws -> URL {
        let root = try PlantedExpressionTests.family(v2Entity: "", v2Attributes: [])
        let directory = root.appendingPathComponent("Shop")
        let v2 = """
            entities:
              Item:
                attributes:
                  name: { type: varchar(100) }
                  codeLength: { type: int32, optional: true }
                  state: { type: varchar(20) }
                  tag: { type: text, optional: true }

            """
        try v2.write(to: directory.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Mappings"), withIntermediateDirectories: true)
        for (name, text) in mappings {
            try text.write(to: directory.appendingPathComponent("Mappings/\(name)"), atomically: true, encoding: .utf8)
        }
        return root
    }

    /// The way up: `attributes` (YAML lines) in one mapping, or two with complementary `filter`s.
    static func up(_ attributes: String, filter: String? = nil) -> String {
        let mapping = { (name: String, filter: String?) in
            "  - name: \(name)\n    source: Item\n    destination: Item\n" + (filter.map { "    filter: \"\($0)\"\n" } ?? "")
                + "    attributes:\n      codeLength: \"length(source.code)\"\n\(attributes)"
        }
        let mappings = filter.map { [mapping("LiveItems", $0), mapping("OtherItems", "NOT (\($0))")] } ?? [mapping("ItemToItem", nil)]
        return "source: v1\ndestination: v2\nentityMappings:\n" + mappings.joined()
    }

    /// The way down, deriving the code from its length with `expression`.
    static func down(_ expression: String) -> String {
        "source: v2\ndestination: v1\nentityMappings:\n  - name: ItemToItem\n    source: Item\n    destination: Item\n    attributes:\n      code: \"\(expression)\"\n"
    }

    /// A mapped step whose value expression or filter would call a planted better match: refused
    /// before it writes a row, naming the mapping file, the planted function and its owner; nothing
    /// planted ran as the migrator; the tenant is still at v1.
    @Test(arguments: [
        ("a value expression", up("      tag: \"public.fold_name(source.name)\"\n"), "fold_name"),
        ("a filter", up("", filter: "public.is_live(source.state)"), "is_live"),
    ])
    func aPlantedBetterMatchInAMappingNeverRunsAsTheMigrator(_ kind: String, _ mapping: String, _ planted: String) async throws {
        let migrations = try Self.family(mappings: ["v1-to-v2.yaml": mapping])
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await Self.tenantAtV1(setup, migrations: migrations)
            try setup.plant([PlantedExpressionTests.plant(planted, "varchar", returns: planted == "is_live" ? "boolean" : "text",
                                                          result: planted == "is_live" ? "true" : "'planted'")])

            try await Self.expectMigrateRefused(setup, migrations, admin, naming: "public.\(planted)(character varying)", kind)
        }
    }

    /// A mapping that reads a relation outside the tenant: a view the attacker owns (which runs its
    /// functions as whoever reads it) is refused, naming it; a table the administrator owns is read.
    @Test func aViewAnotherRoleOwnsIsNeverReadByAMapping() async throws {
        let reads = "(SELECT l.label FROM public.lookup AS l WHERE l.code = source.code)"
        let migrations = try Self.family(mappings: ["v1-to-v2.yaml": Self.up("      tag: \"\(reads)\"\n")])
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await Self.tenantAtV1(setup, migrations: migrations)
            let attacker = try setup.plant([
                "CREATE FUNCTION public.label_for(code text) RETURNS text LANGUAGE plpgsql AS $f$ BEGIN PERFORM public.pwn('lookup'); RETURN 'planted'; END $f$",
                "CREATE VIEW public.lookup AS SELECT 'C1'::varchar AS code, public.label_for('C1') AS label",
                "GRANT SELECT ON public.lookup TO PUBLIC",
            ])

            try await Self.expectMigrateRefused(setup, migrations, admin, naming: "view public.lookup", "a view")

            // The administrator's own table in its place is read.
            try attacker.execute(unsafeSQL: "DROP VIEW public.lookup")
            try admin.execute(unsafeSQL: "CREATE TABLE public.lookup AS SELECT 'C1'::varchar AS code, 'first'::text AS label")
            try admin.execute(unsafeSQL: "GRANT SELECT ON public.lookup TO PUBLIC")
            #expect(try await runTenantMigrate(setup.migrator.url, ["migrate", "--tenant", "t"], migrations: migrations.path) == 0)
            #expect(try admin.rows("SELECT tag FROM tenant_t.item ORDER BY id") == [["first"], [nil], [nil]])
        }
    }

    /// A way back whose expression calls a planted better match: the way up (whose own mapping is
    /// trusted) migrates without comparing with it, so nothing planted runs, and archives every
    /// code; the way down is refused while the planted function is there; once it is gone (and
    /// `public` closed to the attacker), every code comes back.
    @Test func aPlantedBetterMatchInAWayBackNeitherProvesNorRuns() async throws {
        let migrations = try Self.family(mappings: ["v1-to-v2.yaml": Self.up(""), "v2-to-v1.yaml": Self.down("public.code_for(source.codeLength)")])
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await Self.tenantAtV1(setup, migrations: migrations)
            let before: [String] = try admin.column("SELECT code FROM tenant_t.item ORDER BY id")
            let attacker = try setup.plant([PlantedExpressionTests.plant("code_for", "integer", returns: "text", result: "'C' || $1")])

            #expect(try await runTenantMigrate(setup.migrator.url, ["migrate", "--tenant", "t"], migrations: migrations.path) == 0)
            #expect(try admin.column("SELECT who || ' ran ' || what FROM public.pwned", as: String.self).isEmpty, "the way up ran the planted way back")
            let error = await tenantMigrateError(setup.migrator.url, ["rollback", "--tenant", "t", "--to", "v1"], migrations: migrations.path)
            #expect("\(error.map { "\($0)" } ?? "no error")".contains("Shop/Mappings/v2-to-v1.yaml"))
            #expect(try admin.column("SELECT who || ' ran ' || what FROM public.pwned", as: String.self).isEmpty, "the way down ran it")
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v2")

            // The planted function gone and public closed to the attacker: the administrator's runs.
            try attacker.execute(unsafeSQL: "DROP FUNCTION public.code_for(integer)")
            try admin.execute(unsafeSQL: "REVOKE CREATE ON SCHEMA public FROM \(admin.quoteIdentifier(setup.attacker.role))")
            #expect(try await runTenantMigrate(setup.migrator.url, ["rollback", "--tenant", "t", "--to", "v1"], migrations: migrations.path) == 0)
            #expect(try admin.column("SELECT code FROM tenant_t.item ORDER BY id", as: String.self) == before)
        }
    }

    /// Functions in a schema only the administrator creates in are used, in values and ways back.
    @Test func functionsInASchemaOnlyTrustedRolesCreateInAreUsed() async throws {
        let migrations = try Self.family(mappings: [
            "v1-to-v2.yaml": Self.up("      tag: \"ext.fold_name(source.name)\"\n"), "v2-to-v1.yaml": Self.down("ext.code_for(source.codeLength)"),
        ])
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await Self.tenantAtV1(setup, migrations: migrations)
            try setup.administratorHelpersInExt(PlantedExpressionTests.administratorSetup.dropFirst(2), on: admin)
            try setup.plant([PlantedExpressionTests.plant("fold_name", "varchar", returns: "text", result: "'planted'")])

            #expect(try await runTenantMigrate(setup.migrator.url, ["migrate", "--tenant", "t"], migrations: migrations.path) == 0)
            #expect(try admin.column("SELECT tag FROM tenant_t.item ORDER BY id", as: String.self) == ["item 1", "item 2", "item 3"])
            #expect(try await runTenantMigrate(setup.migrator.url, ["rollback", "--tenant", "t", "--to", "v1"], migrations: migrations.path) == 0)
            #expect(try admin.column("SELECT code FROM tenant_t.item ORDER BY id", as: String.self) == ["C1", "C2", "C3"])
            #expect(try admin.column("SELECT who FROM public.pwned", as: String.self).isEmpty)
        }
    }

    /// `migrate --tenant t` with `migrations` is refused, naming the mapping file, `object`, its
    /// owner (the attacker) and 42501; nothing planted ran and `t` is still at v1. `kind` names
    /// the case in failures.
    static func expectMigrateRefused(_ setup: LeastPrivilegeDatabase, _ migrations: URL, _ admin: Connection, naming object: String, _ kind: String,
                                     sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        let error = await tenantMigrateError(setup.migrator.url, ["migrate", "--tenant", "t"], migrations: migrations.path)
        let message = "\(error.map { "\($0)" } ?? "no error")"
        #expect(try admin.column("SELECT who || ' ran ' || what FROM public.pwned", as: String.self).isEmpty, "\(kind): planted code ran",
                sourceLocation: sourceLocation)
        for part in ["Shop/Mappings/v1-to-v2.yaml", object, setup.attacker.role, "42501"] {
            #expect(message.contains(part), "\(kind): the refusal does not name \(part): \(message)", sourceLocation: sourceLocation)
        }
        #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v1", sourceLocation: sourceLocation)
    }

    /// The administrator's helpers and evidence table, tenant `t` at v1 with three items
    /// (`Item i`, code `Ci`, live); the administrator's connection.
    static func tenantAtV1(_ setup: LeastPrivilegeDatabase, migrations: URL) async throws -> Connection {
        let admin = try setup.adminConnection()
        for statement in PlantedExpressionTests.administratorSetup { try admin.execute(unsafeSQL: statement) }
        #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t", "--version", "v1", "--app-role", setup.app.role], migrations: migrations.path) == 0)
        try admin.execute(unsafeSQL: "INSERT INTO tenant_t.item (name, code, state) SELECT 'Item ' || i, 'C' || i, 'live' FROM generate_series(1, 3) AS i")
        return admin
    }
}
