import ArgumentParser
import Foundation
import LibPQ
import Logging
import PostgresTestSupport
import RecipesPolicies
import TenantMigrateCLI
import TenantMigrator
import Testing

/// The repository's root, found from this file.
let repositoryRoot = PackagePaths.root
let migrationsDirectory = repositoryRoot.appendingPathComponent("Migrations").path

/// Warnings and errors only.
let quietLogger: Logger = {
    var logger = Logger(label: "SecurityTests")
    logger.logLevel = .error
    return logger
}()

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
    let migratorRole: String
    let migratorURL: String
    let appRole: String
    let appURL: String
    let attackerRole: String
    let attackerURL: String

    static let password = "s3cret-Pa55"

    /// Runs `body` with a new least-privilege database.
    static func with<T>(_ body: (LeastPrivilegeDatabase) async throws -> T) async throws -> T {
        try await TestPostgres.withDatabaseURL { adminURL in
            let admin = try Connection(adminURL, logger: quietLogger)
            let database = try admin.execute("SELECT current_database()").first!.decode(String.self, at: 0)
            let suffix = String(database.dropFirst("tm_test_".count))
            let migrator = "tm_migrator_" + suffix, app = "tm_app_" + suffix, attacker = "tm_attacker_" + suffix
            for role in [migrator, app, attacker] {
                try admin.execute("CREATE ROLE \(admin.quoteIdentifier(role)) LOGIN NOSUPERUSER NOCREATEROLE NOCREATEDB PASSWORD '\(password)'")
            }
            try admin.execute("GRANT CREATE, CONNECT ON DATABASE \(admin.quoteIdentifier(database)) TO \(admin.quoteIdentifier(migrator))")
            try admin.execute("GRANT CREATE ON SCHEMA public TO \(admin.quoteIdentifier(attacker))")
            let setup = LeastPrivilegeDatabase(
                database: database, adminURL: adminURL,
                migratorRole: migrator, migratorURL: Self.url(adminURL, user: migrator),
                appRole: app, appURL: Self.url(adminURL, user: app),
                attackerRole: attacker, attackerURL: Self.url(adminURL, user: attacker)
            )
            defer {
                // Objects and grants in this database first (the database itself is dropped by
                // TestPostgres afterwards), then the roles; best effort.
                let roles = [migrator, app, attacker].map { admin.quoteIdentifier($0) }.joined(separator: ", ")
                _ = try? admin.execute("DROP OWNED BY \(roles) CASCADE")
                _ = try? admin.execute("DROP ROLE IF EXISTS \(roles)")
            }
            let result = try await body(setup)
            return result
        }
    }

    /// `base` with another user (and the shared test password), or another database.
    static func url(_ base: String, user: String? = nil, database: String? = nil) -> String {
        if base.hasPrefix("postgres://") || base.hasPrefix("postgresql://"), var components = URLComponents(string: base) {
            if let user { components.user = user; components.password = password }
            if let database { components.path = "/" + database }
            return components.string ?? base
        }
        var result = base
        if let user { result += " user='\(user)' password='\(password)'" }
        if let database { result += " dbname='\(database)'" }
        return result
    }

    /// A superuser connection to the test database.
    func adminConnection() throws -> Connection { try Connection(adminURL, logger: quietLogger) }
}

/// The facade over the Recipes family with its Swift policies, as a server app builds it.
func makeRecipesMigrator(_ conninfo: String) throws -> TenantMigrator {
    try TenantMigrator(
        connectionString: conninfo,
        familyDirectory: repositoryRoot.appendingPathComponent("Migrations/Recipes"),
        policies: RecipesPolicies.registry,
        logger: quietLogger
    )
}

/// The runner these tests run in-process: `tenant-migrate` with the Recipes policies (its mapping
/// models name them). A type of the tests' own, so that no suite configures another's.
struct SecurityRunner: TenantMigrateRunner {
    static let runnerConfiguration = TenantMigrateConfiguration(commandName: "tenant-migrate", policies: RecipesPolicies.registry)
}

/// Runs `tenant-migrate <arguments> --database-url <conninfo> --migrations <repo>/Migrations`
/// in-process, as the executable would, and returns its exit code.
@discardableResult
func tenantMigrate(_ conninfo: String, _ arguments: [String], migrations: String = migrationsDirectory) async throws -> Int32 {
    do {
        var command = try SecurityRunner.parseAsRoot(
            arguments + ["--database-url", conninfo, "--migrations", migrations]
        )
        if var async = command as? AsyncParsableCommand {
            try await async.run()
        } else {
            try command.run()
        }
        return 0
    } catch let exit as ExitCode {
        return exit.rawValue
    }
}

/// Runs `tenant-migrate` like ``tenantMigrate(_:_:migrations:)`` and returns the error it ended
/// with: the error a command throws for a single tenant, or its non-zero `ExitCode`; nil on success.
func tenantMigrateError(_ conninfo: String, _ arguments: [String], migrations: String = migrationsDirectory) async -> (any Error)? {
    do {
        let code = try await tenantMigrate(conninfo, arguments, migrations: migrations)
        return code == 0 ? nil : ExitCode(code)
    } catch {
        return error
    }
}

extension Connection {
    /// The first column of the first row.
    func scalar<T: PQDecodable>(_ sql: String, _ parameters: [(any PQEncodable)?] = [], as type: T.Type = T.self) throws -> T {
        guard let row = try execute(sql, parameters).first else { throw TestFailure("no row for \(sql)") }
        return try row.decode(T.self, at: 0)
    }

    /// The first column of every row.
    func column<T: PQDecodable>(_ sql: String, _ parameters: [(any PQEncodable)?] = [], as type: T.Type = T.self) throws -> [T] {
        try execute(sql, parameters).map { try $0.decode(T.self, at: 0) }
    }
}

/// Fills tenant `schema` (at Recipes v2, or v1 with `atV1`) with `recipes` recipes of three
/// ingredients each, as the superuser: types cycle through Meat, Fish, Vegetarian, Dessert and Other.
func loadRecipesAtV2(_ admin: Connection, schema: String, recipes: Int = 20, atV1: Bool = false) throws {
    let quoted = admin.quoteIdentifier(schema)
    try admin.fixtureScript("""
        INSERT INTO \(quoted).recipe (name, type, servings, \(atV1 ? "instructions" : "method"))
        SELECT 'Recipe ' || g, (ARRAY['Meat', 'Fish', 'Vegetarian', 'Dessert', 'Other'])[1 + g % 5], 1 + g % 8, 'Cook it.'
        FROM generate_series(1, \(recipes)) AS g;
        INSERT INTO \(quoted).recipe_ingredient (recipe_id, name, quantity, unit_of_measure)
        SELECT r.id, 'Ingredient ' || ((r.id * 7 + k) % 10), k, (ARRAY['g', 'ml', 'piece'])[1 + ((r.id * 7 + k) % 10) % 3]
        FROM \(quoted).recipe AS r, generate_series(1, 3) AS k
        """)
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; returns whether it held.
func waitUntil(timeout: Duration = .seconds(30), _ condition: () throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try condition()
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
