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

    /// Up to v3 (step by step, or in one call), down to v1 in one call: every motto back, on its
    /// own row, nothing superseded (the app changed nothing). (Seen failing after the stepwise way
    /// up, exit 0, "2 archived values given back": Y's and Z's mottos swapped — each entry's row_key
    /// is a name, matched against v1's key, the code, and Y's name is Z's code — and DE's motto
    /// NULL, superseded, the warning blaming the app. Up in one call, it held.)
    @Test(arguments: [["v2", "v3"], ["v3"]])
    func aFusedWayDownFindsEntriesKeptByTheKeyOfTheirStep(_ stops: [String]) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedKeyChange", conninfo, insert: Self.rows)
            let before = try Self.values(connection, schema)
            for stop in stops { _ = try await migrator.migrate(tenant: "acme", to: stop) }
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try Self.values(connection, schema) == before, "\(stops)")
            #expect(try connection.scalar("SELECT count(*) FROM \(schema)._tm_archive WHERE superseded", as: Int64.self) == 0, "\(stops)")
        }
    }
}
