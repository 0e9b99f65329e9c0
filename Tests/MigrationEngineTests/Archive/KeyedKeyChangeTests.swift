import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34 (attack): an entity whose key changes between versions (fixture family
/// KeyedKeyChange: Country keyed by `code` at v1, by `name` from v2; v3 drops `motto`). The
/// archive keeps v2 → v3's mottos by the key the rows had there (their name); a way down to v1 in
/// one call must still find them, though v1 keys the table by its code.
@Suite("Archive: entries kept by a key the entity no longer has")
struct KeyedKeyChangeTests {
    static let rows = """
        INSERT INTO {schema}.country (code, name, motto) VALUES
            ('DE', 'Germany', 'Einigkeit'), ('XX', 'Nowhere', NULL), ('Y', 'Z', 'said by Y'), ('Z', 'Y', 'said by Z')
        """

    static func values(_ connection: Connection, _ schema: String) throws -> [[String?]] {
        try connection.rows("SELECT code, name, motto FROM \(schema).country ORDER BY code COLLATE \"C\"")
    }

    /// Up to v3 and down to v1, each step by step or in one call. Seen failing, each time exit 0:
    /// - up step by step, down in one call: Y's and Z's mottos swapped ("2 archived values given
    ///   back"), DE's NULL and superseded, the warning blaming the app — the entries (pair v2 → v3)
    ///   hold each row's name, matched against v1's key, the code;
    /// - up in one call, down step by step: the same swap at v3 → v2 — the fused way up filed the
    ///   entries under pair v2 → v3 but wrote each row's code (v1's key) as its row_key, which
    ///   v3 → v2 matched against v2's key, the name.
    /// A key that changes between versions is now refused when the step is planned (and was never
    /// migrated: KeyChangeTests), so every path through v1 → v2 stops before it touches anything,
    /// naming the entity and both keys; a tenant made at v2 goes to v3 and back exactly.
    @Test(arguments: [["v2", "v3"], ["v3"]])
    func everyPathThroughTheKeyChangeIsRefusedBeforeAnythingRuns(_ ups: [String]) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedKeyChange", conninfo, insert: Self.rows)
            let before = try Self.values(connection, schema)
            await #expect {
                for stop in ups { _ = try await migrator.migrate(tenant: "acme", to: stop) }
            } throws: { error in
                "\(error)".contains("entity Country (table country) is keyed by (code) at v1 and by (name) at v2")
            }
            #expect(try Self.values(connection, schema) == before, "\(ups)")
            #expect(try connection.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 'acme'", as: String.self) == "v1")
        }
    }

    @Test func aTenantMadeAfterTheKeyChangeGoesUpAndBackExactly() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedKeyChange", conninfo, version: "v2", insert: Self.rows)
            let before = try Self.values(connection, schema)
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            #expect(try Self.values(connection, schema) == before)
            #expect(try connection.scalar("SELECT count(*) FROM \(schema)._tm_archive WHERE superseded", as: Int64.self) == 0)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
