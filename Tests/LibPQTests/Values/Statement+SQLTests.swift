import LibPQ
import PostgresTestSupport
import Testing

/// Typed SQL keeps names and values out of the statement's syntax: hostile names and values go
/// through a real server by every typed path (`id:`, `table:`, `schema:table:`, `literal:`, `bind:`,
/// `$n` parameters, scripts, COPY) and come back as they were, and nothing else is created or dropped.
struct StatementSQLTests {
    /// A schema, a table and a column whose names try to close their quotes and run SQL of their own.
    static let schema = "tenant \"x\"; DROP SCHEMA victim CASCADE; --"
    static let table = "rec\"ipe'; DELETE FROM victim.kept; --"
    static let column = "na\"me\\\" ) --"
    /// Values that try to close a literal, with and without backslashes (`E'…'` strings).
    static let values = [
        "it's", "'); DROP SCHEMA victim CASCADE; --", "back\\slash \\' E'\\x41'", "\\'; SELECT 1; --", "\"quoted\"", "$1", "{schema}",
    ]

    @Test func hostileNamesAndValuesRoundTripThroughTheTypedPath() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE SCHEMA victim")
            try connection.script("CREATE TABLE victim.kept (n int)")
            try connection.script("INSERT INTO victim.kept VALUES (1)")
            try connection.script("CREATE SCHEMA \(SQL.schema)", schema: Self.schema)
            try connection.execute("CREATE TABLE \(table: Self.table) (id int, \(id: Self.column) text)", schema: Self.schema)
            for (index, value) in Self.values.enumerated() {
                // A value three ways: sent as a parameter (bind:), as a $n parameter, and inline as a string constant.
                try connection.execute("INSERT INTO \(table: Self.table) VALUES (\(bind: index), \(bind: value))", schema: Self.schema)
                try connection.execute("INSERT INTO \(schema: Self.schema, table: Self.table) VALUES ($1, $2)", [index + 100, value])
                try connection.script("INSERT INTO \(table: Self.table) VALUES (\(int: index + 200), \(literal: value))", schema: Self.schema)
            }
            let back = try connection.execute(
                "SELECT id, \(id: Self.column) FROM \(table: Self.table) ORDER BY id", schema: Self.schema
            ).map { (try $0.decode(Int.self, at: 0), try $0.decode(String.self, at: 1)) }
            let expected = Self.values.enumerated().map { ($0.offset, $0.element) }
                + Self.values.enumerated().map { ($0.offset + 100, $0.element) }
                + Self.values.enumerated().map { ($0.offset + 200, $0.element) }
            #expect(back.map(\.0) == expected.map(\.0))
            #expect(back.map(\.1) == expected.map(\.1))
            // COPY out through the typed path gives the same rows.
            var copied = ""
            try connection.copyOut("COPY (SELECT \(id: Self.column) FROM \(table: Self.table) ORDER BY id) TO STDOUT", schema: Self.schema) {
                copied += String(decoding: $0, as: UTF8.self)
            }
            #expect(copied.split(separator: "\n").count == expected.count)
            // Nothing the names or values spelled ran: the victim is intact, and no other schema appeared.
            #expect(try connection.scalar("SELECT count(*)::int FROM victim.kept", as: Int.self) == 1)
            #expect(try connection.userSchemas().sorted() == ["public", Self.schema, "victim"].sorted())
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_class WHERE relname = $1", [Self.table], as: Int.self) == 1)
        }
    }

    @Test func aStatementWithoutASchemaRendersNamesButNeedsNoneOfTheTenants() throws {
        let statement = Statement("SELECT \(id: Self.column) FROM \(schema: "s", table: Self.table) WHERE x = \(bind: "it's")")
        #expect(statement.sql == "SELECT \"na\"\"me\\\"\" ) --\" FROM \"s\".\"rec\"\"ipe'; DELETE FROM victim.kept; --\" WHERE x = $1")
        #expect(statement.binds.count == 1)
        #expect(!("SELECT 1" as SQL).usesTenantSchema)
        #expect(("SELECT * FROM \(table: "t")" as SQL).usesTenantSchema)
    }
}
