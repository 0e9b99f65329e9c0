import Foundation
import LibPQ
import Logging
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport

/// Warnings and errors only: a fleet run logs a line per tenant at info level.
let quietLogger = Logger.quiet("FleetTests")

/// `count` tenant names `prefix001`, `prefix002`, …
func names(_ prefix: String, _ count: Int) -> [String] {
    (1...count).map { prefix + String(format: "%03d", $0) }
}

/// A fleet of Recipes tenants for one test: `count` tenants `prefix001`, … created at v1 (four at a
/// time), those `filled` (all of them unless given) loaded with `recipes` recipes of three
/// ingredients, the migrator over them and a connection to look at them.
func recipesFleet(
    _ conninfo: String, _ prefix: String, _ count: Int, recipes: Int, filled: [String]? = nil, lockTimeout: Duration? = nil
) async throws -> (migrator: TenantMigrator, tenants: [String], connection: Connection) {
    let migrator = try makeRecipesMigrator(conninfo, lockTimeout: lockTimeout)
    let tenants = names(prefix, count)
    let created = try await migrator.createTenants(tenants, version: "v1", jobs: 4)
    guard created.succeeded, created.migrated == count else { throw TestFailure("creating the fleet: \(created.failed) failed") }
    let connection = try Connection(conninfo, logger: quietLogger)
    try connection.loadRecipes(tenants: filled ?? tenants, recipes: recipes)
    return (migrator, tenants, connection)
}

extension Connection {
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
