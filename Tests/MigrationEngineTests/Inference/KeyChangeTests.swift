import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34 (attack): an entity's key changed between versions (fixture family KeyedKeyChange:
/// Country keyed by `code` at v1, by `name` from v2) is migrated like any other change.
@Suite("Inference: a key changed between versions")
struct KeyChangeTests {
    /// The key change itself is migrated: at v2 the table's primary key is (name). (Seen failing:
    /// v1 → v2 ran no statement, exit 0; verify: "table country: primary key is (code), expected (name)".)
    @Test func aKeyChangedBetweenVersionsIsMigrated() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, _, _) = try await fixtureTenant("KeyedKeyChange", conninfo, insert: KeyedKeyChangeTests.rows)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
