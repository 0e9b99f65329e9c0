import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34 (attack): whole rows of an entity keyed by a natural key, removed by a step, come back
/// with every value as it was (fixture family KeyedWholeRowValues). The archive keeps a whole row
/// as a JSON object of its columns; a `json` column (kept as written: spaces, duplicate keys) and
/// array columns (a JSON array is not PostgreSQL's array text; a double's -0) do not survive
/// being members of a `jsonb` object.
@Suite("Archive: whole keyed rows keep json and array values exactly")
struct KeyedWholeRowValuesTests {
    /// `json` values: a `json` value is kept as written (docs/ModelFormat.md): removed with its row
    /// and given back, it must read as it did, duplicate keys and spaces included. (Seen failing:
    /// the rollback gave back `{"a": 2}` for `{"a":1,  "a":2}`, exit 0, "values given back".)
    static let rows = #"""
        WITH settings AS (INSERT INTO {schema}.setting (code, raw, scores, tags) VALUES
            ('dup', '{"a":1,  "a":2}', NULL, NULL),
            ('spaced', '[1,   2.50 ,"x"]', NULL, NULL),
            ('plain', '{}', NULL, NULL))
        INSERT INTO {schema}.keep (x) VALUES ('k')
        """#

    /// Array values (a double's -0 and NaN, text with commas, braces, quotes and a NULL element)
    /// come back exactly. (Seen failing: the way down stops with 22P02 "malformed array literal:
    /// \"[0, 1.5, \"NaN\", …]\"" — the archive holds JSON arrays, and -0 is 0 there.)
    static let arrays = #"""
        WITH settings AS (INSERT INTO {schema}.setting (code, raw, scores, tags) VALUES
            ('neg', NULL, '{-0,1.5,NaN,-Infinity}', '{"a,b","{c}","q\"uote",NULL}'),
            ('empty', NULL, '{}', '{}'))
        INSERT INTO {schema}.keep (x) VALUES ('k')
        """#

    static func values(_ connection: Connection, _ schema: String) throws -> [[String?]] {
        try connection.rows("SELECT code, raw::text, scores::text, tags::text FROM \(schema).setting ORDER BY code COLLATE \"C\"")
    }

    /// Rows removed by v1 → v2 (``rows``, ``arrays``) come back from the way down with every value
    /// as it was, and the tenant verifies clean.
    @Test(arguments: [("json", rows), ("arrays", arrays)])
    func removedRowsComeBackWithEveryValueAsWritten(_ kind: String, _ insert: String) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedWholeRowValues", conninfo, insert: insert)
            let before = try Self.values(connection, schema)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try Self.values(connection, schema) == before, "\(kind)")
            #expect(try await verifyClean(migrator, "acme"), "\(kind)")
        }
    }
}
