import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import TenantMigrator
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// Issue 34 made the model carry SQL that the migrator puts into its DDL and runs with its own
/// rights: default expressions, checks, index expressions and partial-index predicates. A function
/// or operator an untrusted role planted where such an expression resolves must never run as the
/// migrator (docs/Security.md, "Expressions of the model").
///
/// The setup is an old one (before PostgreSQL 15): an administrator installed helper functions in
/// `public`, where the attacker role may create objects too. The attacker plants better matches
/// for the model's calls (an `integer` overload for `public.code_for(bigint)` called with `7`, a
/// `varchar` overload where the column is `varchar`), each logging `current_user` when it runs.
@Suite("Planted functions and operators in the model's expressions")
struct PlantedExpressionTests {
    /// The administrator's helpers in `public`, the attacker's evidence table and logger.
    static let administratorSetup = [
        "CREATE TABLE public.pwned (who text, what text)",
        "GRANT INSERT, SELECT ON public.pwned TO PUBLIC",
        "CREATE FUNCTION public.code_for(bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'C' || $1$$",
        "CREATE FUNCTION public.is_valid(text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$SELECT length($1) > 0$$",
        "CREATE FUNCTION public.fold_name(text) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT lower($1)$$",
        "CREATE FUNCTION public.is_live(text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$SELECT $1 <> 'gone'$$",
        "CREATE FUNCTION public.same(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$SELECT $1 = $2$$",
        "CREATE OPERATOR public.=== (LEFTARG = text, RIGHTARG = text, FUNCTION = public.same)",
    ]

    /// The evidence table (the start of ``administratorSetup``) and a schema `ext` that only the
    /// administrator creates in and everyone may use.
    static func evidenceAndSchemaExt(on admin: Connection) throws {
        for statement in administratorSetup.prefix(2) { try admin.execute(unsafeSQL: statement) }
        try admin.execute("CREATE SCHEMA ext")
        try admin.execute("GRANT USAGE ON SCHEMA ext TO PUBLIC")
    }

    /// What the attacker plants: a logger (volatile, so it may write), then one better match per
    /// helper, IMMUTABLE so that an index accepts it.
    static func plant(_ name: String, _ arguments: String, returns: String, result: String) -> String {
        """
        CREATE FUNCTION public.\(name)(\(arguments)) RETURNS \(returns) LANGUAGE plpgsql IMMUTABLE AS $f$
        BEGIN PERFORM public.pwn('\(name)'); RETURN \(result); END $f$
        """
    }

    static let logger = """
        CREATE FUNCTION public.pwn(what text) RETURNS void LANGUAGE plpgsql VOLATILE AS $f$
        BEGIN INSERT INTO public.pwned VALUES (current_user, what); END $f$
        """

    /// v1: items with a name, a code and a state. v2 adds what `v2Lines` says.
    static func family(v2Entity: String, v2Attributes: [String] = []) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tm-planted-\(UUID().uuidString)")
        let directory = root.appendingPathComponent("Shop")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "family: Shop\nversions: [v1, v2]\n".write(to: directory.appendingPathComponent("family.yaml"), atomically: true, encoding: .utf8)
        let attributes = [
            "      name: { type: varchar(100) }",
            "      code: { type: varchar(20) }",
            "      state: { type: varchar(20) }",
        ]
        try (["entities:", "  Item:", "    attributes:"] + attributes).joined(separator: "\n")
            .appending("\n").write(to: directory.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        try (["entities:", "  Item:"] + (v2Entity.isEmpty ? [] : [v2Entity]) + ["    attributes:"] + attributes + v2Attributes)
            .joined(separator: "\n").appending("\n").write(to: directory.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        return root
    }

    /// What v2 adds: the kind of expression, the entity's and the attributes' lines, the attacker's
    /// better matches, and what a refusal must name.
    typealias Addition = (kind: String, entity: String, attributes: [String], plants: [String], named: [String])

    /// What v2 adds, by the kind of expression, and what it must name when it refuses.
    static let additions: [Addition] = [
        ("a default expression", "", ["      tag: { type: text, defaultExpression: \"public.code_for(7)\" }"],
         [plant("code_for", "integer", returns: "text", result: "'planted'")], ["Item.tag", "public.code_for(integer)"]),
        ("a check", "", ["      label: { type: varchar(20), optional: true, check: \"public.is_valid(label) OR label IS NULL\" }"],
         [plant("is_valid", "varchar", returns: "boolean", result: "true")], ["Item", "public.is_valid(character varying)"]),
        ("an expression index", "    indexes:\n      - { on: [\"(public.fold_name(name))\"] }", [],
         [plant("fold_name", "varchar", returns: "text", result: "'planted'")], ["Item", "public.fold_name(character varying)"]),
        ("a partial index", "    indexes:\n      - { on: [code], where: \"public.is_live(state)\" }", [],
         [plant("is_live", "varchar", returns: "boolean", result: "true")], ["Item", "public.is_live(character varying)"]),
        ("an operator", "    checks:\n      - \"NOT (code OPERATOR(public.===) 'forbidden')\"", [],
         [plant("same_planted", "varchar, text", returns: "boolean", result: "false"),
          "CREATE OPERATOR public.=== (LEFTARG = varchar, RIGHTARG = text, FUNCTION = public.same_planted)"],
         ["Item", "public.===(character varying,text)"]),
    ]

    @Test(arguments: 0..<5)
    func aPlantedBetterMatchNeverRunsAsTheMigrator(_ index: Int) async throws {
        try await expectPlantedMatchRefused(Self.additions[index], items: 3, migrating: [])
    }

    /// Tenant `t` at v1 of the family `addition` changes, with `items` items, then the attacker's
    /// logger and better matches planted, then `migrate --tenant t` with `options`: refused,
    /// naming the model file, the element, the planted object and its owner; nothing planted ran
    /// as the migrator; the tenant is still at v1.
    private func expectPlantedMatchRefused(_ addition: Addition, items: Int, migrating options: [String]) async throws {
        let migrations = try Self.family(v2Entity: addition.entity, v2Attributes: addition.attributes)
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try setup.adminConnection()
            for statement in Self.administratorSetup { try admin.execute(unsafeSQL: statement) }
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t", "--version", "v1", "--app-role", setup.app.role], migrations: migrations.path) == 0)
            try admin.execute(unsafeSQL: "INSERT INTO tenant_t.item (name, code, state) SELECT 'Item ' || i, 'C' || i, 'live' FROM generate_series(1, \(items)) AS i")
            try Self.plant(addition, as: setup)

            let error = await tenantMigrateError(setup.migrator.url, ["migrate", "--tenant", "t"] + options, migrations: migrations.path)
            let ran: [String] = try admin.column("SELECT who || ' ran ' || what FROM public.pwned WHERE who = $1", [setup.migrator.role])
            #expect(ran.isEmpty, "\(addition.kind): planted code ran as the migrator: \(ran)")
            #expect(error != nil, "\(addition.kind): migrated")
            Self.expectRefusal(error, of: addition, by: setup)
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v1")
        }
    }

    /// The attacker's logger, then `addition`'s better matches, made by the attacker.
    static func plant(_ addition: Addition, as setup: LeastPrivilegeDatabase) throws {
        try setup.plant(addition.plants)
    }

    /// `error` refuses `addition`: it names the model file, the element, the planted object and
    /// the attacker who owns it.
    static func expectRefusal(_ error: (any Error)?, of addition: Addition, by setup: LeastPrivilegeDatabase) {
        let message = "\(error.map { "\($0)" } ?? "no error")"
        for part in addition.named + ["Shop/v2.yaml", setup.attacker.role] {
            #expect(message.contains(part), "\(addition.kind): the refusal does not name \(part): \(message)")
        }
    }

    /// The same expressions, where the functions live in a schema only the administrator may create
    /// in: the migration runs and calls the administrator's functions.
    @Test func functionsInASchemaOnlyTrustedRolesCreateInAreUsed() async throws {
        let migrations = try Self.family(
            v2Entity: "    indexes:\n      - { on: [\"(ext.fold_name(name))\"] }\n      - { on: [code], where: \"ext.is_live(state)\" }\n    checks:\n      - \"NOT (code OPERATOR(ext.===) 'forbidden')\"",
            v2Attributes: ["      tag: { type: text, defaultExpression: \"ext.code_for(7)\" }",
                           "      label: { type: varchar(20), optional: true, check: \"ext.is_valid(label) OR label IS NULL\" }"]
        )
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try setup.adminConnection()
            try admin.execute("CREATE SCHEMA ext")
            try admin.execute("GRANT USAGE ON SCHEMA ext TO PUBLIC")
            for statement in Self.administratorSetup {
                try admin.execute(unsafeSQL: statement.replacingOccurrences(of: "public.", with: "ext.").replacingOccurrences(of: "ext.pwned", with: "public.pwned"))
            }
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t", "--version", "v1"], migrations: migrations.path) == 0)
            try admin.execute("INSERT INTO tenant_t.item (name, code, state) VALUES ('Item', 'C1', 'live')")
            // Planted in public, where the model does not look.
            try setup.plant(Self.additions.flatMap(\.plants))

            #expect(try await runTenantMigrate(setup.migrator.url, ["migrate", "--tenant", "t"], migrations: migrations.path) == 0)
            #expect(try admin.scalar("SELECT tag FROM tenant_t.item", as: String.self) == "C7")
            #expect(try admin.column("SELECT who FROM public.pwned", as: String.self).isEmpty)
        }
    }

    /// Unqualified names resolve in `pg_catalog` alone: an app role that may create objects in its
    /// schema, and the attacker in `public`, plant better matches for `lower` and `=` in vain.
    @Test func unqualifiedNamesNeverReachPlantedObjects() async throws {
        let migrations = try Self.family(
            v2Entity: "    indexes:\n      - { on: [\"(lower(name))\"], where: \"lower(state) <> 'gone'\" }\n    checks:\n      - \"code <> 'forbidden'\"",
            v2Attributes: ["      tag: { type: text, defaultExpression: \"lower('A')\" }"]
        )
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try setup.adminConnection()
            for statement in Self.administratorSetup.prefix(2) { try admin.execute(unsafeSQL: statement) }
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t", "--version", "v1", "--app-role", setup.app.role], migrations: migrations.path) == 0)
            try admin.execute("INSERT INTO tenant_t.item (name, code, state) VALUES ('Item', 'C1', 'live')")
            let migrator = try setup.migrator.connect()
            try migrator.execute(unsafeSQL: "GRANT CREATE ON SCHEMA tenant_t TO \(migrator.quoteIdentifier(setup.app.role))")
            let attacker = try setup.plant([])
            let app = try setup.app.connect()
            for (connection, schema) in [(attacker, "public"), (app, "tenant_t")] {
                try connection.execute(unsafeSQL: Self.plant("lower", "varchar", returns: "text", result: "'planted'").replacingOccurrences(of: "public.lower", with: "\(schema).lower"))
                try connection.execute(unsafeSQL: Self.plant("neq", "varchar, text", returns: "boolean", result: "true").replacingOccurrences(of: "public.neq", with: "\(schema).neq"))
                try connection.execute(unsafeSQL: "CREATE OPERATOR \(schema).<> (LEFTARG = varchar, RIGHTARG = text, FUNCTION = \(schema).neq)")
            }

            #expect(try await runTenantMigrate(setup.migrator.url, ["migrate", "--tenant", "t"], migrations: migrations.path) == 0)
            #expect(try admin.scalar("SELECT tag FROM tenant_t.item", as: String.self) == "a")
            #expect(try admin.column("SELECT who || ' ran ' || what FROM public.pwned", as: String.self).isEmpty)
        }
    }

    /// `tenant create` of a version whose expressions would call a planted function is refused
    /// before anything is made.
    @Test func tenantCreateRefusesAPlantedFunction() async throws {
        let addition = Self.additions[2]
        let migrations = try Self.family(v2Entity: addition.entity)
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try setup.adminConnection()
            for statement in Self.administratorSetup { try admin.execute(unsafeSQL: statement) }
            try Self.plant(addition, as: setup)
            let error = await tenantMigrateError(setup.migrator.url, ["tenant", "create", "t", "--version", "v2"], migrations: migrations.path)
            Self.expectRefusal(error, of: addition, by: setup)
            #expect(try admin.scalar("SELECT count(*)::int FROM pg_namespace WHERE nspname = 'tenant_t'", as: Int.self) == 0)
            #expect(try admin.column("SELECT who FROM public.pwned", as: String.self).isEmpty)
        }
    }

    /// Online, the shadow is filled and its indexes built by the migrator: the same refusal.
    @Test(arguments: [1, 2, 4])
    func onlineAPlantedBetterMatchNeverRunsAsTheMigrator(_ index: Int) async throws {
        try await expectPlantedMatchRefused(Self.additions[index], items: 50, migrating: ["--online"])
    }

    /// A schema to adopt whose check calls a function the app role planted in it, with the very
    /// signature of `pg_catalog.lower(text)`: PostgreSQL prints it `shop.lower(name)`, which reads
    /// as the model's `lower(name)` once the schema's own name is stripped. Adopted, every later
    /// write of the migrator would run it (here: a v2 that retypes the column revalidates the check).
    @Test func adoptRefusesASchemaWhoseCheckCallsAPlantedFunction() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tm-planted-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("Shop")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "family: Shop\nversions: [v1, v2]\n".write(to: directory.appendingPathComponent("family.yaml"), atomically: true, encoding: .utf8)
        for (version, type) in [("v1", "string"), ("v2", "varchar(100), allowsNarrowing: true")] {
            try "entities:\n  Item:\n    checks:\n      - \"(lower(name) <> ''::text)\"\n    attributes:\n      name: { type: \(type) }\n"
                .write(to: directory.appendingPathComponent("\(version).yaml"), atomically: true, encoding: .utf8)
        }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try setup.adminConnection()
            try admin.execute(unsafeSQL: Self.administratorSetup[0])
            try admin.execute(unsafeSQL: Self.administratorSetup[1])
            let migrator = try setup.migrator.connect()
            try migrator.execute("CREATE SCHEMA shop")
            try migrator.execute(unsafeSQL: "GRANT USAGE, CREATE ON SCHEMA shop TO \(migrator.quoteIdentifier(setup.app.role))")
            let app = try setup.app.connect()
            try app.execute(unsafeSQL: Self.logger.replacingOccurrences(of: "public.pwn(", with: "shop.pwn("))
            try app.execute(unsafeSQL: Self.plant("lower", "text", returns: "text", result: "pg_catalog.lower($1)")
                .replacingOccurrences(of: "public.lower(", with: "shop.lower(").replacingOccurrences(of: "public.pwn(", with: "shop.pwn("))
            try migrator.execute("CREATE TABLE shop.item (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name text NOT NULL, CHECK (shop.lower(name) <> ''))")
            try migrator.execute("INSERT INTO shop.item (name) VALUES ('Tea')")
            try admin.execute("TRUNCATE public.pwned")

            await expectRefused(setup.migrator.url, ["tenant", "adopt", "t", "--schema", "shop"], migrations: root.path,
                                naming: ["function shop.lower(text)", setup.app.role, "item"])
            _ = await tenantMigrateError(setup.migrator.url, ["migrate", "--tenant", "t"], migrations: root.path)
            #expect(try admin.column("SELECT who || ' ran ' || what FROM public.pwned WHERE who = $1", [setup.migrator.role], as: String.self).isEmpty)
            #expect(try admin.scalar("SELECT count(*)::int FROM pg_namespace WHERE nspname = 'tenant_migrator'", as: Int.self) == 0
                    || admin.scalar("SELECT count(*)::int FROM tenant_migrator.tenants", as: Int.self) == 0)
        }
    }

    /// The library's lower layers take the app's own connection, whose `search_path` may hold a
    /// schema an untrusted role may create in (`public` here): `lower(name)` on a `varchar` then
    /// resolves to a planted `public.lower(varchar)`, however the path is ordered, since it is a
    /// better match than `pg_catalog.lower(text)`. Such a path is refused while the model has
    /// expressions.
    @Test func aSearchPathAnUntrustedRoleMayCreateInIsRefused() async throws {
        let migrations = try Self.family(v2Entity: "    indexes:\n      - { on: [\"(lower(name))\"] }")
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try setup.adminConnection()
            for statement in Self.administratorSetup.prefix(2) { try admin.execute(unsafeSQL: statement) }
            try setup.plant([Self.plant("lower", "varchar", returns: "text", result: "'planted'")])
            // The app's connection, with the default search_path ("$user", public).
            let connection = try setup.migrator.connect()
            let family = try ModelFamily.load(from: migrations.appendingPathComponent("Shop"))
            let catalog = TenantCatalog()
            try catalog.install(on: connection)
            let lifecycle = TenantLifecycle(catalog: catalog, family: family)
            #expect(throws: UntrustedExpression.self) { try lifecycle.create(try TenantName("t"), version: "v2", on: connection) }
            do {
                try lifecycle.create(try TenantName("t"), version: "v2", on: connection)
            } catch {
                #expect("\(error)".contains("schema public") && "\(error)".contains(setup.attacker.role), "\(error)")
                #expect((error as? UntrustedExpression)?.sqlState.rawValue == "42501")
            }
            #expect(try admin.column("SELECT who FROM public.pwned", as: String.self).isEmpty)
            // With the migrator's own search_path, the same model is fine: only pg_catalog is searched.
            try connection.setSearchPath(["pg_catalog", "pg_temp"])
            try lifecycle.create(try TenantName("t"), version: "v2", on: connection)
            try admin.execute("INSERT INTO tenant_t.item (name, code, state) VALUES ('Tea', 'T', 'live')")
            #expect(try admin.column("SELECT who FROM public.pwned", as: String.self).isEmpty)
        }
    }

    /// An operator the administrator made in a schema of its own, but over a function the attacker
    /// owns: the function behind the operator is what runs, so it is judged too.
    @Test func anOperatorOverAnUntrustedFunctionIsRefused() async throws {
        try await expectOperatorRefused(naming: "function public.same_planted(character varying,text)") { admin, attacker in
            try attacker.execute(unsafeSQL: Self.plant("same_planted", "varchar, text", returns: "boolean", result: "false"))
            try admin.execute("CREATE OPERATOR ext.=== (LEFTARG = varchar, RIGHTARG = text, FUNCTION = public.same_planted)")
        }
    }

    /// An administrator's operator whose negator the attacker made first (`NEGATOR = !==` found the
    /// attacker's `public.!==`): the planner evaluates `NOT (a === b)` as `a !== b`, so validating
    /// the check would run the attacker's function. The negator and its function are judged too.
    @Test func anOperatorWithAnUntrustedNegatorIsRefused() async throws {
        try await expectOperatorRefused(naming: "function public.differs(character varying,text)") { admin, attacker in
            try attacker.execute(unsafeSQL: Self.plant("differs", "varchar, text", returns: "boolean", result: "true"))
            try attacker.execute("CREATE OPERATOR public.!== (LEFTARG = varchar, RIGHTARG = text, FUNCTION = public.differs)")
            // Not SQL, so that it is not inlined (inlined, the negator of its body's = would be used).
            try admin.execute("CREATE FUNCTION ext.same(varchar, text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $f$BEGIN RETURN $1 = $2; END$f$")
            try admin.execute("CREATE OPERATOR ext.=== (LEFTARG = varchar, RIGHTARG = text, FUNCTION = ext.same, NEGATOR = OPERATOR(public.!==))")
        }
    }

    /// v2 checks `NOT (code OPERATOR(ext.===) 'forbidden')`, in a schema `ext` only the
    /// administrator creates in, where `makeOperator` makes `===` (the attacker's logger is there
    /// already): tenant `t`, created at v1 with an item, is refused v2, naming `function` and the
    /// attacker, and nothing planted ran.
    private func expectOperatorRefused(
        naming function: String, _ makeOperator: (_ admin: Connection, _ attacker: Connection) throws -> Void
    ) async throws {
        let migrations = try Self.family(v2Entity: "    checks:\n      - \"NOT (code OPERATOR(ext.===) 'forbidden')\"")
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try setup.adminConnection()
            try Self.evidenceAndSchemaExt(on: admin)
            let attacker = try setup.plant([])
            try makeOperator(admin, attacker)
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t", "--version", "v1"], migrations: migrations.path) == 0)
            try admin.execute("INSERT INTO tenant_t.item (name, code, state) VALUES ('Tea', 'T', 'live')")
            let error = await tenantMigrateError(setup.migrator.url, ["migrate", "--tenant", "t"], migrations: migrations.path)
            let message = "\(error.map { "\($0)" } ?? "no error")"
            #expect(message.contains(function) && message.contains(setup.attacker.role), "\(message)")
            #expect(try admin.column("SELECT who FROM public.pwned", as: String.self).isEmpty)
        }
    }

    /// A schema only the administrator creates in, holding a function of the attacker's (made
    /// there once, or given to it since) beside the administrator's of the same name: the model's
    /// call resolves to the administrator's today, but would resolve to the attacker's wherever
    /// the column's type differs when the DDL runs. Every function of that name is judged.
    @Test func anUntrustedOverloadBesideTheResolvedFunctionIsRefused() async throws {
        let migrations = try Self.family(v2Entity: "", v2Attributes: ["      note: { type: string, optional: true, check: \"ext.is_valid(note)\" }"])
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try setup.adminConnection()
            try Self.evidenceAndSchemaExt(on: admin)
            try admin.execute("CREATE FUNCTION ext.is_valid(text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$SELECT length($1) > 0$$")
            try admin.execute("CREATE FUNCTION ext.is_valid(varchar) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$SELECT true$$")
            try admin.execute(unsafeSQL: "ALTER FUNCTION ext.is_valid(varchar) OWNER TO \(admin.quoteIdentifier(setup.attacker.role))")
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t", "--version", "v1"], migrations: migrations.path) == 0)
            let error = await tenantMigrateError(setup.migrator.url, ["migrate", "--tenant", "t"], migrations: migrations.path)
            let message = "\(error.map { "\($0)" } ?? "no error")"
            #expect(message.contains("function ext.is_valid(character varying)") && message.contains(setup.attacker.role), "\(message)")
            #expect(!message.contains("function ext.is_valid(text)"), "\(message)")
        }
    }
}
