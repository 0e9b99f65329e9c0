import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrateCLI
import TenantMigratorTestSupport
import Testing

/// Defect 1 of issue 11: a mistake in the connection string made libpq quote the password, and
/// tenant-migrate printed it. The password must reach no output: not the thrown error, not stderr,
/// not the logs of --verbose, not the report of --json, whether the string comes from
/// --database-url or DATABASE_URL.
@Suite("Passwords never reach output")
struct PasswordRedactionTests {
    /// Part of every password below; it must never be printed.
    static let secret = "Hunter2Secret"

    /// A connection string with a mistake that libpq's parser would quote, and what the error says.
    struct Shape: Sendable, CustomTestStringConvertible {
        let name: String
        let problem: String
        let build: @Sendable (Server) -> String
        var testDescription: String { name }
    }

    /// Where the least-privilege database is, from its conninfo.
    struct Server: Sendable {
        let host: String, port: String, database: String, user: String

        init(_ setup: LeastPrivilegeDatabase) throws {
            let options = Dictionary(try #require(ConnectionString.parse(setup.migrator.url)).map { ($0.key, $0.value) }) { $1 }
            host = options["host"] ?? "localhost"
            port = options["port"] ?? "5432"
            database = options["dbname"] ?? setup.database
            user = options["user"] ?? setup.migrator.role
        }

        /// `postgres://user:<password>@<host>:<port>/<database>`, or with `hostAndPort` as written.
        func uri(password: String, hostAndPort: String? = nil) -> String {
            let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
            let encodedHost = host.addingPercentEncoding(withAllowedCharacters: unreserved) ?? host
            return "postgres://\(user):\(password)@\(hostAndPort ?? "\(encodedHost):\(port)")/\(database)"
        }
    }

    static let shapes: [Shape] = [
        Shape(name: "a bad percent token", problem: "not followed by two hexadecimal digits") {
            $0.uri(password: "\(secret)%ZZ")
        },
        Shape(name: "%00 in the password", problem: "contains %00") {
            $0.uri(password: "\(secret)%00x")
        },
        Shape(name: "an unbalanced [", problem: "no matching ']'") {
            $0.uri(password: secret, hostAndPort: "[::1:\($0.port)")
        },
        Shape(name: "junk after ]", problem: "a ']' is followed by") {
            $0.uri(password: secret, hostAndPort: "[::1]x:\($0.port)")
        },
        Shape(name: "a conninfo password with an unquoted space", problem: "has no '=' after it") {
            "host='\($0.host)' port=\($0.port) dbname='\($0.database)' user='\($0.user)' password=Pa55 \(secret)"
        },
        // libpq reads the part after the space as a keyword, which it quotes: not shown.
        Shape(name: "a conninfo password with an unquoted space and '='", problem: "it has an unknown keyword (quote a value with spaces") {
            "host='\($0.host)' port=\($0.port) dbname='\($0.database)' user='\($0.user)' password=Pa55 \(secret)=x"
        },
        // A misspelt keyword: the one it was meant to be, named.
        Shape(name: "a misspelt keyword", problem: "it has an unknown keyword; did you mean sslmode?") {
            "host='\($0.host)' port=\($0.port) dbname='\($0.database)' user='\($0.user)' password=\(secret) sslmod=disable"
        },
    ]

    @Test(arguments: shapes)
    func theThrownErrorNamesTheProblemWithoutThePassword(_ shape: Shape) async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let conninfo = shape.build(try Server(setup))
            do {
                try await runTenantMigrate(conninfo, ["status"])
                Issue.record("status must fail with \(shape.name)")
            } catch {
                let message = RecipesTestRunner.message(for: error)
                #expect(!message.contains(Self.secret), "\(message)")
                #expect(!String(reflecting: error).contains(Self.secret))
                #expect(message.contains(shape.problem), "\(message)")
                if conninfo.hasPrefix("postgres://") {
                    #expect(message.contains("postgres://\(setup.migrator.role):***@"), "the URI, redacted: \(message)")
                }
            }
        }
    }

    @Test(.enabled(if: TenantMigrateExecutable.url != nil, "needs the tenant-migrate executable beside the tests"))
    func databaseURLWithAMistakeIsReportedWithoutThePassword() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let server = try Server(setup)
            for shape in Self.shapes {
                let output = try await Self.run(["status"], databaseURL: shape.build(server))
                #expect(output.status != 0, "\(shape.name)")
                #expect(output.stderr.contains(shape.problem), "\(shape.name): \(output.stderr)")
                #expect(!output.stderr.contains(Self.secret) && !output.stdout.contains(Self.secret), "\(shape.name): \(output.stderr)")
            }
        }
    }

    /// --verbose logs every statement; neither they nor a failed connection show the password.
    @Test(.enabled(if: TenantMigrateExecutable.url != nil, "needs the tenant-migrate executable beside the tests"))
    func verboseLogsShowNoPassword() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let server = try Server(setup)
            let good = server.uri(password: LeastPrivilegeDatabase.password)
            let created = try await Self.run(["tenant", "create", "acme", "--version", "v1", "--verbose"], databaseURL: good)
            #expect(created.status == 0, "\(created.stderr)")
            #expect(created.stderr.contains("CREATE TABLE"), "--verbose logs the statements")
            #expect(!(created.stdout + created.stderr).contains(LeastPrivilegeDatabase.password))

            for shape in Self.shapes {
                let output = try await Self.run(["status", "--verbose"], databaseURL: shape.build(server))
                #expect(output.status != 0)
                #expect(!(output.stdout + output.stderr).contains(Self.secret), "\(shape.name): \(output.stderr)")
            }
        }
    }

    /// The --json report of a fleet run, and its error, show no password.
    @Test(.enabled(if: TenantMigrateExecutable.url != nil, "needs the tenant-migrate executable beside the tests"))
    func jsonReportsShowNoPassword() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let server = try Server(setup)
            let good = server.uri(password: LeastPrivilegeDatabase.password)
            let created = try await Self.run(["tenant", "create", "acme", "globex", "--version", "v1", "--json"], databaseURL: good)
            #expect(created.status == 0, "\(created.stderr)")
            let migrated = try await Self.run(["migrate", "--all", "--json"], databaseURL: good)
            #expect(migrated.status == 0, "\(migrated.stderr)")
            #expect(migrated.stdout.contains("\"migrated\""))
            for output in [created, migrated] {
                #expect(!(output.stdout + output.stderr).contains(LeastPrivilegeDatabase.password))
            }

            for shape in Self.shapes {
                let output = try await Self.run(["migrate", "--all", "--json"], databaseURL: shape.build(server))
                #expect(output.status != 0)
                #expect(!(output.stdout + output.stderr).contains(Self.secret), "\(shape.name): \(output.stderr)")
            }
        }
    }

    /// Runs the real executable with DATABASE_URL (and no PG* variables), on the Recipes family.
    static func run(_ arguments: [String], databaseURL: String) async throws -> TenantMigrateExecutable.Output {
        var environment: [String: String?] = ["DATABASE_URL": databaseURL]
        for name in ["PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD", "PGSERVICE", "PGSERVICEFILE"] {
            environment[name] = .some(nil)
        }
        return try await TenantMigrateExecutable.run(arguments + ["--migrations", migrationsDirectory], environment: environment)
    }
}
