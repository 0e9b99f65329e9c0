import ArgumentParser
import Foundation
import LibPQ
import MigrationEngine
import Logging
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// Warnings and errors only.
let quietLogger = Logger.quiet("SecurityTests")

/// A fresh database set up the least-privilege way (docs/Security.md):
/// - `admin`: the superuser, for the test's own setup and inspection only;
/// - `migrator`: an ordinary role (NOSUPERUSER, NOCREATEROLE) with CREATE on this database and
///   nothing else; it runs every `tenant-migrate` command;
/// - `app`: an untrusted tenant application role, given rights by `tenant create --app-role`;
/// - `attacker`: another untrusted role, with CREATE on `public` (the pre-PostgreSQL-15 default).
///
/// The roles are cluster-wide, so their names carry the database's name; they are dropped afterwards.
struct LeastPrivilegeDatabase: Sendable {
    let database: String
    let adminURL: String
    let migrator: Login
    let app: Login
    let attacker: Login

    static let password = "s3cret-Pa55"

    /// Runs `body` with a new least-privilege database.
    static func with<T>(_ body: (LeastPrivilegeDatabase) async throws -> T) async throws -> T {
        try await TestPostgres.withDatabaseURL { adminURL in
            let admin = try Connection(adminURL, logger: quietLogger)
            let database = try admin.execute("SELECT current_database()").first!.decode(String.self, at: 0)
            let suffix = String(database.dropFirst("tm_test_".count))
            let migrator = "tm_migrator_" + suffix, app = "tm_app_" + suffix, attacker = "tm_attacker_" + suffix
            for role in [migrator, app, attacker] {
                try admin.execute(unsafeSQL: "CREATE ROLE \(admin.quoteIdentifier(role)) LOGIN NOSUPERUSER NOCREATEROLE NOCREATEDB PASSWORD '\(password)'")
            }
            try admin.execute(unsafeSQL: "GRANT CREATE, CONNECT ON DATABASE \(admin.quoteIdentifier(database)) TO \(admin.quoteIdentifier(migrator))")
            try admin.execute(unsafeSQL: "GRANT CREATE ON SCHEMA public TO \(admin.quoteIdentifier(attacker))")
            let setup = LeastPrivilegeDatabase(
                database: database, adminURL: adminURL,
                migrator: Login(adminURL, role: migrator), app: Login(adminURL, role: app), attacker: Login(adminURL, role: attacker)
            )
            defer {
                // Objects and grants in this database first (the database itself is dropped by
                // TestPostgres afterwards), then the roles; best effort.
                let roles = [migrator, app, attacker].map { admin.quoteIdentifier($0) }.joined(separator: ", ")
                // Their schemas go first: a DROP OWNED that drops a schema and the owner's default
                // privileges in it fails on PostgreSQL 15 ("could not find tuple for default ACL"),
                // and the roles stayed behind in the shared cluster, run after run.
                let names = [migrator, app, attacker].map { admin.quoteLiteral($0) }.joined(separator: ", ")
                if let schemas = try? admin.execute(unsafeSQL: """
                    SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_roles r ON r.oid = n.nspowner
                    WHERE r.rolname IN (\(names))
                    """).map({ $0[0] ?? "" }).filter({ !$0.isEmpty }), !schemas.isEmpty {
                    _ = try? admin.execute(unsafeSQL: "DROP SCHEMA \(schemas.joined(separator: ", ")) CASCADE")
                }
                _ = try? admin.execute(unsafeSQL: "DROP OWNED BY \(roles) CASCADE")
                _ = try? admin.execute(unsafeSQL: "DROP ROLE IF EXISTS \(roles)")
            }
            let result = try await body(setup)
            return result
        }
    }

    /// `base` with another user (and the shared test password), or another database.
    static func url(_ base: String, user: String? = nil, database: String? = nil) -> String {
        connectionString(base, user: user, password: user == nil ? nil : password, database: database)
    }

    /// A superuser connection to the test database.
    func adminConnection() throws -> Connection { try Connection(adminURL, logger: quietLogger) }

    /// Creates tenant `t` at Recipes v2 as the migrator, with the app role (`tenant create
    /// --app-role`), and fills it with `recipes` recipes; returns the superuser's connection.
    @discardableResult
    func recipesTenant(recipes: Int) async throws -> Connection {
        #expect(try await runTenantMigrate(migrator.url, ["tenant", "create", "t", "--version", "v2", "--app-role", app.role]) == 0)
        let admin = try adminConnection()
        try admin.loadRecipes(tenants: ["t"], version: "v2", recipes: recipes)
        return admin
    }
}

/// Runs `tenant-migrate` like ``runTenantMigrate(_:_:migrations:)`` and returns the error it ended
/// with: the error a command throws for a single tenant, or its non-zero `ExitCode`; nil on success.
func tenantMigrateError(_ conninfo: String, _ arguments: [String], migrations: String = migrationsDirectory) async -> (any Error)? {
    do {
        let code = try await runTenantMigrate(conninfo, arguments, migrations: migrations)
        return code == 0 ? nil : ExitCode(code)
    } catch {
        return error
    }
}

/// What the planted-object suites set up: the attacker's objects, and the administrator's helpers
/// where only trusted roles create.
extension LeastPrivilegeDatabase {
    /// The attacker's connection, once it made its logger (``PlantedExpressionTests/logger``: what
    /// it plants records who ran it in `public.pwned`) and then `plants`, in order.
    @discardableResult
    func plant(_ plants: [String]) throws -> Connection {
        let attacker = try self.attacker.connect()
        try attacker.execute(unsafeSQL: PlantedExpressionTests.logger)
        for statement in plants { try attacker.execute(unsafeSQL: statement) }
        return attacker
    }

    /// What migrating tenant `t` to Recipes v3 as the migrator, with `policies`, online or not, failed
    /// with (`no error: ` and the outcome when it did not fail).
    func migrationMessage(policies: PolicyRegistry, online: Bool) async -> String {
        do {
            let result = try await makeRecipesMigrator(migrator.url, policies: policies).migrate(tenant: "t", .migrate(to: "v3", online: online ? .on : .off))
            return "no error: \(result.outcome)"
        } catch {
            return "\(error)"
        }
    }

    /// Schema `ext`, which everyone may use and only the administrator creates in, with `helpers`
    /// (statements of ``PlantedExpressionTests/administratorSetup``) made there instead of in `public`.
    func administratorHelpersInExt(_ helpers: some Sequence<String>, on admin: Connection) throws {
        try admin.execute("CREATE SCHEMA ext")
        try admin.execute("GRANT USAGE ON SCHEMA ext TO PUBLIC")
        for statement in helpers { try admin.execute(unsafeSQL: statement.replacingOccurrences(of: "public.", with: "ext.")) }
    }
}
