import ArgumentParser
import Foundation
import LibPQ
import Logging
import PostgresTestSupport
import RecipesPolicies
import TenantMigrateCLI
import Testing

/// The repository's root, found from this file.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
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

/// Runs `tenant-migrate <arguments> --database-url <conninfo> --migrations <repo>/Migrations`
/// in-process, as the executable would, and returns its exit code.
@discardableResult
func tenantMigrate(_ conninfo: String, _ arguments: [String]) async throws -> Int32 {
    TenantMigrateCommand.use(policies: RecipesPolicies.registry)
    do {
        var command = try TenantMigrateCommand.parseAsRoot(
            arguments + ["--database-url", conninfo, "--migrations", migrationsDirectory]
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

extension Connection {
    /// The first column of the first row.
    func scalar<T: PostgresDecodable>(_ sql: String, _ parameters: [(any PostgresEncodable)?] = [], as type: T.Type = T.self) throws -> T {
        guard let row = try execute(sql, parameters).first else { throw TestFailure("no row for \(sql)") }
        return try row.decode(T.self, at: 0)
    }

    /// The first column of every row.
    func column<T: PostgresDecodable>(_ sql: String, _ parameters: [(any PostgresEncodable)?] = [], as type: T.Type = T.self) throws -> [T] {
        try execute(sql, parameters).map { try $0.decode(T.self, at: 0) }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
