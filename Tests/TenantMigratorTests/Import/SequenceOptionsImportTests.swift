import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: a sequence with its own bounds, cache and cycle (`pg_sequence`) imports with them,
/// with no note and no difference; adopting and `verify` are clean, and a tenant made from the
/// imported model has the same sequence.
@Suite("Importing sequences' options")
struct SequenceOptionsImportTests {
    static let schema = [
        "CREATE SCHEMA ledger",
        "CREATE SEQUENCE ledger.ticket_seq AS integer START 100 MINVALUE 100 MAXVALUE 99999 CACHE 10 CYCLE",
        "CREATE SEQUENCE ledger.countdown_seq INCREMENT -1 START -1",
        "CREATE SEQUENCE ledger.batch_seq AS smallint START 1 MAXVALUE 500",
        "CREATE TABLE ledger.ticket (id integer PRIMARY KEY DEFAULT nextval('ledger.ticket_seq'), subject text NOT NULL)",
        "INSERT INTO ledger.ticket (subject) VALUES ('a'), ('b')",
    ]

    @Test func aSequenceWithItsOwnBoundsCacheAndCycleImportsAndANewTenantHasTheSame() async throws {
        try await TestPostgres.withDatabase { connection in
            let imported = try cleanImport("ledger", made: Self.schema, lines: [
                "  ticket_seq: { type: integer, start: 100, minValue: 100, maxValue: 99999, cycle: true, cache: 10 }",
                "  countdown_seq: { start: -1, increment: -1 }",
                "  batch_seq: { type: smallint, maxValue: 500 }",
            ], file: "Ledger/v1.yaml", on: connection).imported
            let adopted = try AdoptedSchema("ledger", version: imported.version, family: "Ledger", on: connection)
            try adopted.expectClean(on: connection)
            try adopted.expectNewTenantLikeTheAdopted("ledger", shape: Self.sequences(on: connection), on: connection)
            try adopted.expectClean("created", on: connection)
        }
    }

    /// Each sequence of `schema` with every setting `pg_sequence` has.
    static func sequences(on connection: Connection) -> (String) throws -> [String] {
        { schema in
            try connection.column("""
                SELECT c.relname || ' ' || format_type(s.seqtypid, NULL) || ' ' || s.seqstart || ' ' || s.seqincrement || ' ' || s.seqmin || ' '
                       || s.seqmax || ' ' || s.seqcache || ' ' || s.seqcycle
                FROM pg_class c JOIN pg_sequence s ON s.seqrelid = c.oid WHERE c.relnamespace = $1::regnamespace ORDER BY 1
                """, [schema], as: String.self)
        }
    }
}
