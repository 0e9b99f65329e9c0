import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 33: an online cutover replaces the live tables by the shadow's, so what depends on a live
/// table and is not the model's (another schema's view, a table inheriting from it, a rule, a
/// trigger, a policy, a foreign key from outside, a table of another schema it inherits from) would
/// go on pointing at the retired table, or be dropped with it. Such an object made before the run
/// refuses the tenant; one made while the run builds is found under the cutover's lock: the run
/// fails before the swap, nothing changed, the tenant still at its version, the error naming the
/// object (SQLSTATE 2BP01).
@Suite("Online runs and what depends on the live tables")
struct OnlineRunDependentsTests {
    /// Each kind of object on `tenant_acme.recipe` (v2): the statements that make it (in schema
    /// `outside`), and how the refusal names it.
    static let dependents: [String: (statements: [String], named: String)] = [
        "view": (["CREATE VIEW outside.recipe_names AS SELECT name FROM tenant_acme.recipe"],
                 "view outside.recipe_names (on table tenant_acme.recipe)"),
        "inheritance": (["CREATE TABLE outside.special_recipe (note text) INHERITS (tenant_acme.recipe)"],
                        "table outside.special_recipe (on table tenant_acme.recipe)"),
        // The other way: the live table made a child of another schema's table, whose reads
        // would go on reading the retired table's rows.
        "parent": (["CREATE TABLE outside.base ()", "ALTER TABLE tenant_acme.recipe INHERIT outside.base"],
                   "table tenant_acme.recipe inherits from table outside.base"),
        "rule": (["CREATE RULE audit AS ON UPDATE TO tenant_acme.recipe DO ALSO NOTIFY recipe_changed"], "rule audit on table tenant_acme.recipe"),
        "trigger": (["CREATE FUNCTION outside.audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$",
                     "CREATE TRIGGER audit AFTER UPDATE ON tenant_acme.recipe FOR EACH ROW EXECUTE FUNCTION outside.audit()"],
                    "trigger audit on table tenant_acme.recipe"),
        "policy": (["CREATE POLICY audit ON tenant_acme.recipe USING (true)"], "policy audit on table tenant_acme.recipe"),
        "foreign key": (["CREATE TABLE outside.note (id bigint PRIMARY KEY, recipe_id bigint REFERENCES tenant_acme.recipe (id))"],
                        "constraint note_recipe_id_fkey on table outside.note (on table tenant_acme.recipe)"),
    ]

    /// The object of `kind` (one of ``dependents``), made on `tenant_acme.recipe`, and how the refusal names it.
    static func make(_ kind: String, on connection: Connection) throws -> String {
        let dependent = try #require(dependents[kind], "no dependent of kind \(kind)")
        try connection.execute("CREATE SCHEMA outside")
        for statement in dependent.statements { try connection.execute(unsafeSQL: statement) }
        return dependent.named
    }

    /// The object made after the run built the shadow (before its catch-up and cutover), on
    /// another connection: the cutover finds it under its lock and fails before the swap.
    @Test(arguments: ["view", "inheritance", "parent", "rule", "trigger", "policy", "foreign key"])
    func anObjectMadeOnALiveTableDuringTheRunFailsItBeforeTheSwap(_ kind: String) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            try lifecycle.create(try tenant("acme"), version: "v2", on: connection)
            try connection.loadRecipes(tenants: ["acme"], version: "v2", recipes: 5)
            var migrator = try makeRecipesMigrator(conninfo)
            let expected = Locked("")
            migrator.settings.online.checkpoint = { checkpoint in
                if checkpoint.phase == .built { try expected.withLock { $0 = try Self.make(kind, on: Connection(conninfo)) } }
            }
            do {
                let result = try await migrator.migrate(tenant: "acme", .migrate(to: "v3", online: .on))
                Issue.record("\(kind): \(result.outcome), the object left on the retired table")
            } catch {
                #expect("\(error)".contains(expected.value), "\(error)")
                #expect("\(error)".contains("2BP01"), "\(error)")
                #expect((error as? TenantMigrationError)?.sqlState == "2BP01", "\(error)")
            }
            #expect(try connection.tenantVersions()["acme"]?.version == "v2")
            #expect(try connection.userSchemas().allSatisfy { !$0.hasPrefix("_tm_") })
            // The tenant's tables are the live ones still, and the object is on them.
            #expect(try connection.scalar("SELECT count(*) FROM tenant_acme.recipe", as: Int64.self) == 5)
            if kind == "view" { #expect(try connection.scalar("SELECT count(*) FROM outside.recipe_names", as: Int64.self) == 5) }
        }
    }

    /// Made before the run: refused before anything is touched.
    @Test(arguments: ["view", "foreign key", "parent"])
    func anObjectOutsideTheSchemaRefusesTheTenantBeforeTheRun(_ kind: String) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            try lifecycle.create(try tenant("acme"), version: "v2", on: connection)
            try connection.loadRecipes(tenants: ["acme"], version: "v2", recipes: 5)
            let expected = try Self.make(kind, on: connection)
            let checkpoints = Locked(0)
            var migrator = try makeRecipesMigrator(conninfo)
            migrator.settings.online.checkpoint = { _ in checkpoints.withLock { $0 += 1 } }
            do {
                let result = try await migrator.migrate(tenant: "acme", .migrate(to: "v3", online: .on))
                Issue.record("\(kind): \(result.outcome)")
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
                #expect("\(error)".contains("cannot migrate online"), "\(error)")
                #expect("\(error)".contains("2BP01"), "\(error)")
            }
            #expect(checkpoints.value == 0, "nothing was prepared")
            #expect(try connection.tenantVersions()["acme"]?.version == "v2")
            #expect(try connection.userSchemas().allSatisfy { !$0.hasPrefix("_tm_") })
            // Gone (detached first: dropping the parent would drop the tenant's table with it), the tenant migrates online.
            if kind == "parent" { try connection.execute("ALTER TABLE tenant_acme.recipe NO INHERIT outside.base") }
            try connection.execute("DROP SCHEMA outside CASCADE")
            let result = try await makeRecipesMigrator(conninfo).migrate(tenant: "acme", .migrate(to: "v3", online: .on))
            #expect(result.outcome == .migrated)
            #expect(result.online?.mode == "shadow")
        }
    }
}

/// The one dependent the cutover's check cannot exclude: a function that only names a live table's
/// row type as an argument or result type takes no lock on the table (PostgreSQL records the
/// dependency on the type without one), so one made after the check under the cutover's ACCESS
/// EXCLUSIVE lock and before its commit names the table the swap retires. Made here from the
/// cutover's last checkpoint (after that check, before the commit), on a connection of its own,
/// deterministic. What must not follow is a silent loss: the retired tables' schema is dropped with
/// `CASCADE` by the next online run of the tenant, `archive prune` and `tenant drop`, which would
/// take the app's function with it. They refuse instead, naming it (2BP01), and keep the retired
/// tables until it is dropped or changed.
@Suite("Online runs and a row-type user made during the cutover")
struct OnlineRunRowTypeDuringCutoverTests {
    @Test func aFunctionNamingTheRowTypeMadeAfterTheCheckIsNeverDroppedWithTheRetiredTables() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            try lifecycle.create(try tenant("acme"), version: "v2", on: connection)
            try connection.loadRecipes(tenants: ["acme"], version: "v2", recipes: 5)
            try connection.execute("CREATE SCHEMA outside")
            var migrator = try makeRecipesMigrator(conninfo)
            let made = Locked<String?>(nil)
            migrator.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .cutoverSwapped, made.value == nil else { return }
                let app = try Connection(conninfo)
                // Bounded: were it to wait for the cutover's lock, the test fails instead of hanging.
                try app.execute("SET statement_timeout = '60s'")
                do {
                    try app.execute("CREATE FUNCTION outside.recipe_label(r tenant_acme.recipe) RETURNS text LANGUAGE sql AS $$ SELECT 'recipe' $$")
                    made.withLock { $0 = "made" }
                } catch {
                    made.withLock { $0 = "failed: \(error)" }
                }
            }
            let result = try await migrator.migrate(tenant: "acme", .migrate(to: "v3", online: .on))
            #expect(result.outcome == .migrated)
            #expect(made.value == "made", "\(String(describing: made.value))")
            // It names the retired table's row type: the window is real.
            let arguments = "SELECT pg_get_function_identity_arguments('outside.recipe_label'::regproc)"
            let named = try connection.scalar(arguments, as: String.self)
            #expect(named.contains("_tm_retired_"), "\(named)")

            // The next online run of the tenant (which drops the retired tables first), archive
            // prune and tenant drop refuse, naming it; it is still there.
            let functions = "SELECT count(*) FROM pg_proc WHERE proname = 'recipe_label'"
            do {
                let back = try await makeRecipesMigrator(conninfo).migrate(tenant: "acme", .rollback(to: "v2", online: .on))
                Issue.record("the next online run went on: \(back.outcome)")
            } catch {
                #expect("\(error)".contains("function outside.recipe_label"), "\(error)")
                #expect("\(error)".contains("2BP01"), "\(error)")
            }
            #expect(try connection.scalar(functions, as: Int64.self) == 1, "the next online run dropped the app's function")
            #expect(try connection.tenantVersions()["acme"]?.version == "v3")
            do {
                let pruned = try await makeRecipesMigrator(conninfo).prune(olderThan: .zero)
                Issue.record("prune went on: \(pruned.retiredTables)")
            } catch {
                #expect("\(error)".contains("function outside.recipe_label"), "\(error)")
            }
            #expect(try connection.scalar(functions, as: Int64.self) == 1, "archive prune dropped the app's function")
            #expect(throws: (any Error).self, "tenant drop went on") { try lifecycle.drop(try tenant("acme"), confirmed: true, on: connection) }
            #expect(try connection.scalar(functions, as: Int64.self) == 1, "tenant drop dropped the app's function")
            #expect(try connection.tenantVersions()["acme"]?.version == "v3")

            // Once it is gone, the tenant goes back online.
            try connection.execute("DROP FUNCTION outside.recipe_label")
            let back = try await makeRecipesMigrator(conninfo).migrate(tenant: "acme", .rollback(to: "v2", online: .on))
            #expect(back.outcome == .migrated)
        }
    }
}
