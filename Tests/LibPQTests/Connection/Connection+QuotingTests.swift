import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct ConnectionQuotingTests {
    static let hostileName = "a \"b\"; DROP SCHEMA public; --é😀"

    @Test func quotesIdentifiersExactly() async throws {
        try await TestPostgres.withDatabase { connection in
            #expect(connection.quoteIdentifier("plain") == "\"plain\"")
            #expect(connection.quoteIdentifier("tenant \"a\"") == "\"tenant \"\"a\"\"\"")
            #expect(connection.quoteIdentifier(Self.hostileName) == "\"a \"\"b\"\"; DROP SCHEMA public; --é😀\"")
        }
    }

    @Test func hostileSchemaNameIsCreatedAndDroppedWithoutTouchingAnythingElse() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript("CREATE TABLE keep_one (id int); CREATE TABLE keep_two (id int)")
            func schemaCount() throws -> Int { try connection.scalar("SELECT count(*) FROM pg_namespace") }
            func publicTableCount() throws -> Int { try connection.scalar("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") }
            let schemasBefore = try schemaCount()
            let tablesBefore = try publicTableCount()
            #expect(tablesBefore == 2)

            let schema = connection.quoteIdentifier(Self.hostileName)
            let table = connection.quoteIdentifier("t \"x\"; --")
            try connection.script(unsafeSQL: "CREATE SCHEMA \(schema)")
            try connection.script(unsafeSQL: "CREATE TABLE \(schema).\(table) (\(connection.quoteIdentifier("col; DROP")) text)")
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).\(table) VALUES ($1)", ["inside"])
            #expect(try schemaCount() == schemasBefore + 1)
            #expect(try connection.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = $1", [Self.hostileName], as: Int.self) == 1)
            #expect(try connection.scalar("SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = $2", [Self.hostileName, "t \"x\"; --"], as: Int.self) == 1)
            #expect(try connection.scalar("SELECT \(connection.quoteIdentifier("col; DROP")) FROM \(schema).\(table)", as: String.self) == "inside")

            try connection.script(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
            #expect(try schemaCount() == schemasBefore)
            #expect(try publicTableCount() == tablesBefore)
            #expect(try connection.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = 'public'", as: Int.self) == 1)
            #expect(try connection.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = $1", [Self.hostileName], as: Int.self) == 0)
        }
    }

    @Test(arguments: ["on", "off"])
    func quotedLiteralsReadBackExactly(standardConformingStrings: String) async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script(unsafeSQL: "SET standard_conforming_strings = \(standardConformingStrings)")
            let values = [
                "", "plain", "it's", "''", "back\\slash", "\\'; DROP TABLE x; --", "E'\\x41'", "tab\tnew\nline",
                "Grüße 😀", "$$dollar$$", "\\\\\\",
            ]
            for value in values {
                let literal = connection.quoteLiteral(value)
                #expect(try connection.scalar("SELECT \(literal)::text", as: String.self) == value, "\(literal)")
            }
            #expect(connection.quoteLiteral("it's") == "'it''s'")
            #expect(connection.quoteLiteral("a\\b") == " E'a\\\\b'")
        }
    }
}
