import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Dry runs and rehearsals run a tenant's real migration and roll it back: nothing changes, and
/// nothing is recorded.
@Suite("Dry runs and rehearsals")
struct MigrationRunModeTests {
    let catalog = TenantCatalog()

    /// Runs `body` on a fresh database holding tenant `acme` at Catalogue v1, with 20 products and a
    /// note on each; gives it the database's URL, a connection, the family and the ``state(_:)``
    /// the tenant starts in.
    func withAcme(
        _ body: (_ conninfo: String, _ connection: Connection, _ family: ModelFamily, _ before: [String: String]) async throws -> Void
    ) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            let family = try fixtureFamily("Catalogue")
            try catalog.install(on: connection)
            try TenantLifecycle(catalog: catalog, family: family).create(try tenant("acme"), version: "v1", on: connection)
            try connection.execute("INSERT INTO tenant_acme.product (code, title) SELECT 'P' || g, 'Product ' || g FROM generate_series(1, 20) g")
            try connection.execute("INSERT INTO tenant_acme.product_note (product_id, text) SELECT id, 'Note on ' || code FROM tenant_acme.product")
            try await body(conninfo, connection, family, try state(connection))
        }
    }

    func run(_ conninfo: String, _ runner: TenantExecutor, _ name: String, to target: String, mode: MigrationRunMode) async throws -> TenantMigrationResult {
        let database = try await AsyncConnection.connect(conninfo)
        let name = try tenant(name)
        return try await database.withConnection { try runner.migrate(name, MigrationRequest(.move, to: target, allowDestructive: false, mode: mode), on: $0) }
    }

    /// The whole state a trial must leave alone: the tenant's tables and the catalog.
    func state(_ connection: Connection) throws -> [String: String] {
        try connection.tableChecksums(schema: "tenant_acme", rowsOrderedBy: .text).merging(
            try connection.tableChecksums(schema: "tenant_migrator", rowsOrderedBy: .text).mapKeys { "catalog." + $0 }, uniquingKeysWith: { a, _ in a }
        ).merging(["shape": try connection.column("""
            SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
            FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'tenant_acme' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1
            """, as: String.self).joined(separator: ",")], uniquingKeysWith: { a, _ in a })
    }

    @Test func aDryRunMigratesForRealAndRollsBack() async throws {
        try await withAcme { conninfo, connection, family, before in
            let runner = TenantExecutor(catalog: catalog, planner: MigrationPlanner(family: family))

            let result = try await run(conninfo, runner, "acme", to: "v2", mode: .dryRun)
            #expect(result.outcome == .migrated)
            #expect(result.statistics.statements > 0)
            #expect(try state(connection) == before)

            // A dry run that would fail reports the failure with its SQLSTATE and records nothing:
            // v3 makes product codes unique.
            try connection.execute("UPDATE tenant_acme.product SET code = 'P1' WHERE code = 'P2'")
            let duplicated = try state(connection)
            if let error = await migrationFailure("the dry run must report the duplicate codes", {
                _ = try await run(conninfo, runner, "acme", to: "v3", mode: .dryRun)
            }) {
                #expect(error.sqlState == .uniqueViolation)
                #expect(error.isRecorded)
                #expect(error.description.contains("product"))
            }
            #expect(try state(connection) == duplicated)
            #expect(try connection.scalar("SELECT state FROM tenant_migrator.tenants WHERE name = 'acme'", as: String.self) == "ready")
        }
    }

    @Test func aRehearsalFindsWhatTheWayBackDoesNotRestore() async throws {
        try await withAcme { conninfo, connection, family, before async throws in
            // v1 → v2 → v1 restores everything: the rehearsal passes and changes nothing.
            let clean = TenantExecutor(catalog: catalog, planner: MigrationPlanner(family: family))
            #expect(try await run(conninfo, clean, "acme", to: "v2", mode: .rehearse).outcome == .migrated)
            #expect(try state(connection) == before)

            // A way back that loses a note (a hook the step account cannot see) is caught, naming the
            // table and the row.
            var hooks = PolicyRegistry()
            hooks.registerHooks(family: family.name, from: "v2", to: "v1", StepHooks(didMigrate: { connection, schema in
                try connection.execute(unsafeSQL: "DELETE FROM \(connection.quoteIdentifier(schema)).product_note WHERE text = 'Note on P7'")
            }))
            let lossy = TenantExecutor(catalog: catalog, planner: MigrationPlanner(family: family, hooks: hooks))
            if let error = await migrationFailure("the rehearsal must find the lost note", {
                _ = try await run(conninfo, lossy, "acme", to: "v2", mode: .rehearse)
            }) {
                let rehearsal = error.underlying as? RehearsalFailed
                #expect(rehearsal?.difference.table == "product_note")
                #expect(rehearsal?.difference.before?.contains("Note on P7") == true)
                #expect(error.description.contains("product_note"))
            }
            #expect(try state(connection) == before)
        }
    }
}

extension Dictionary {
    func mapKeys(_ transform: (Key) -> String) -> [String: Value] {
        Dictionary<String, Value>(uniqueKeysWithValues: map { (transform($0.key), $0.value) })
    }
}
