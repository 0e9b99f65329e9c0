import ArgumentParser
import Foundation
import LibPQ
import Logging
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrateCLI
import TenantMigrator
import Testing

/// The repository's root, found from this file.
let repositoryRoot = PackagePaths.root
let migrationsDirectory = repositoryRoot.appendingPathComponent("Migrations").path

/// Warnings and errors only: a fleet run logs a line per tenant at info level.
let quietLogger: Logger = {
    var logger = Logger(label: "FleetTests")
    logger.logLevel = .error
    return logger
}()

/// The facade over the Recipes family with its Swift policies, as a server app builds it.
func makeMigrator(_ conninfo: String, lockTimeout: Duration? = nil) throws -> TenantMigrator {
    var migrator = try TenantMigrator(
        connectionString: conninfo,
        familyDirectory: repositoryRoot.appendingPathComponent("Migrations/Recipes"),
        policies: RecipesPolicies.registry,
        logger: quietLogger
    )
    if let lockTimeout { migrator.lockTimeout = lockTimeout }
    return migrator
}

/// The runner these tests run in-process: `tenant-migrate` with the Recipes policies (its mapping
/// models name them). A type of the tests' own, so that no suite configures another's.
struct FleetTestRunner: TenantMigrateRunner {
    static let runnerConfiguration = TenantMigrateConfiguration(commandName: "tenant-migrate", policies: RecipesPolicies.registry)
}

/// Runs `tenant-migrate <arguments> --database-url <conninfo> --migrations <repo>/Migrations`
/// in-process, as the executable would.
func runCLI(_ conninfo: String, _ arguments: [String]) async throws {
    var command = try FleetTestRunner.parseAsRoot(
        arguments + ["--database-url", conninfo, "--migrations", migrationsDirectory]
    )
    if var async = command as? AsyncParsableCommand {
        try await async.run()
    } else {
        try command.run()
    }
}

/// The exit code a command ends with: 0 when it returns, the code of the `ExitCode` it throws.
/// Any other error is rethrown.
func exitCode(_ conninfo: String, _ arguments: [String]) async throws -> Int32 {
    do {
        try await runCLI(conninfo, arguments)
        return 0
    } catch let exit as ExitCode {
        return exit.rawValue
    }
}

/// `count` tenant names `prefix001`, `prefix002`, …
func names(_ prefix: String, _ count: Int) -> [String] {
    (1...count).map { prefix + String(format: "%03d", $0) }
}

/// Fills v1 tenants with `recipes` recipes of `ingredients` ingredients each: two INSERT … SELECT
/// statements per tenant, one round trip. Ingredient names come from a pool of 40 (so v3's
/// de-duplication has work to do); each name always has the same unit; types cycle through Meat,
/// Fish, Vegetarian, Dessert and Other.
func loadRecipesAtV1(_ conninfo: String, tenants: [String], recipes: Int, ingredients: Int = 3) throws {
    let connection = try Connection(conninfo, logger: quietLogger)
    for tenant in tenants {
        let schema = connection.quoteIdentifier("tenant_" + tenant)
        try connection.fixtureScript("""
            INSERT INTO \(schema).recipe (name, type, servings, instructions)
            SELECT 'Recipe ' || g, (ARRAY['Meat', 'Fish', 'Vegetarian', 'Dessert', 'Other'])[1 + g % 5], (1 + g % 8)::int2,
                   'Cook recipe ' || g || ' with care.'
            FROM generate_series(1, \(recipes)) AS g;
            INSERT INTO \(schema).recipe_ingredient (recipe_id, name, quantity, unit_of_measure)
            SELECT r.id, 'Ingredient ' || ((r.id * 7 + k) % 40), (k * 10 + r.id % 5)::numeric,
                   (ARRAY['g', 'ml', 'piece', 'tbsp'])[1 + ((r.id * 7 + k) % 40) % 4]
            FROM \(schema).recipe AS r, generate_series(1, \(ingredients)) AS k
            """)
    }
}

extension Connection {
    /// The first column of the first row.
    func scalar<T: PQDecodable>(_ sql: String, _ parameters: [(any PQEncodable)?] = [], as type: T.Type = T.self) throws -> T {
        guard let row = try execute(sql, parameters).first else { throw TestFailure("no row for \(sql)") }
        return try row.decode(T.self, at: 0)
    }

    /// The backends of this database waiting on a heavyweight lock.
    func lockWaiters() throws -> [Int32] {
        try execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
            .map { try $0.decode(Int32.self, at: 0) }
    }

    /// Every tenant's (version, state), by name.
    func tenantVersions() throws -> [String: (version: String, state: String)] {
        var result: [String: (version: String, state: String)] = [:]
        for row in try execute("SELECT name, version, state FROM tenant_migrator.tenants") {
            result[try row.decode(String.self, at: 0)] = (try row.decode(String.self, at: 1), try row.decode(String.self, at: 2))
        }
        return result
    }

    /// md5 of the contents of every table of `schema` (rows ordered by id), by table name.
    func tableChecksums(schema: String) throws -> [String: String] {
        let tables = try execute("SELECT tablename::text FROM pg_tables WHERE schemaname = $1 ORDER BY 1", [schema])
            .map { try $0.decode(String.self, at: 0) }
        var sums: [String: String] = [:]
        for table in tables {
            sums[table] = try scalar(
                "SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY t.id)), 'empty') FROM \(quoteIdentifier(schema)).\(quoteIdentifier(table)) t",
                as: String.self
            )
        }
        return sums
    }

    /// The shape of `schema`: every relation with its kind, every column with its type and
    /// nullability, every constraint and index definition; one line each, sorted.
    func schemaShape(_ schema: String) throws -> [String] {
        try execute("""
            SELECT 'relation ' || c.relname || ' ' || c.relkind::text
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1
            UNION ALL
            SELECT 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull
            FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND a.attnum > 0 AND NOT a.attisdropped
            UNION ALL
            SELECT 'constraint ' || conname || ' ' || pg_get_constraintdef(co.oid)
            FROM pg_constraint co JOIN pg_namespace n ON n.oid = co.connamespace WHERE n.nspname = $1
            UNION ALL
            SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = $1
            ORDER BY 1
            """, [schema]).map { try $0.decode(String.self, at: 0) }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
