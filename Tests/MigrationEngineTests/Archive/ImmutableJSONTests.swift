import EntityModel
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import Testing

/// The IMMUTABLE form of `jsonb_build_object(…)::text` prints exactly what jsonb prints, for
/// generated keys and values: every control character, quotes, backslashes, non-ASCII, empty
/// strings and NULLs; keys of every length, in jsonb's order.
@Suite struct ImmutableJSONTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func itPrintsWhatJsonbPrints(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let characters: [Character] = (1..<0x20).map { Character(Unicode.Scalar($0)!) } + Array("aZ09 \"\\'{}:,é→😀")
        func text(_ maxLength: Int) -> String {
            String((0..<Int.random(in: 0...maxLength, using: &random)).map { _ in characters.randomElement(using: &random)! })
        }
        try await TestPostgres.withDatabase { connection in
            for _ in 0..<60 {
                let count = Int.random(in: 1...4, using: &random)
                var members: [(key: String, value: String?)] = []
                for _ in 0..<count { members.append((text(6), Int.random(in: 0..<5, using: &random) == 0 ? nil : text(10))) }
                let columns = members.indices.map { "v\($0)" }
                let values = members.map { $0.value.map { connection.quoteLiteral($0) } ?? "NULL::text" }.joined(separator: ", ")
                let immutable = ImmutableJSON.object(members.indices.map { (members[$0].key, "t.\(id: columns[$0])") })
                let jsonb = "pg_catalog.jsonb_build_object("
                    + members.indices.map { "\(connection.quoteLiteral(members[$0].key)), t.\(columns[$0])" }.joined(separator: ", ") + ")::text"
                let row = try connection.execute("SELECT \(immutable), \(raw: jsonb) FROM (SELECT \(raw: values)) AS t(\(ids: columns))")[0]
                let mine = try row.decode(String.self, at: 0), theirs = try row.decode(String.self, at: 1)
                #expect(mine == theirs, "\(members)")
            }
        }
    }

    /// Only Citus runs this form, and only because Citus refuses a STABLE function there; so that
    /// plain PostgreSQL catches a STABLE function creeping back in, the form is put in an index
    /// expression, which takes IMMUTABLE functions only (42P17 otherwise), as jsonb's form shows.
    @Test func itIsImmutableAsAnIndexExpressionRequires() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.execute("CREATE TABLE left_values (a text, \"b\"\"c\" text, \"é\" text)")
            let members = ["a", "b\"c", "é"].map { (key: $0, value: "\(id: $0)" as SQL) }
            try connection.execute("CREATE INDEX immutable_form ON left_values ((\(ImmutableJSON.object(members))))")
            try connection.execute("INSERT INTO left_values VALUES ('x', NULL, 'y\ny')")
            let printed: String = try connection.scalar("SELECT \(ImmutableJSON.object(members).text(schema: "")) FROM left_values")
            #expect(printed == #"{"a": "x", "é": "y\ny", "b\"c": null}"#)

            let stable = "pg_catalog.jsonb_build_object(" + members.map { "\(connection.quoteLiteral($0.key)), \(connection.quoteIdentifier($0.key))" }.joined(separator: ", ") + ")::text"
            let refusal = #expect(throws: PQError.self) { try connection.execute("CREATE INDEX stable_form ON left_values ((\(raw: stable)))") }
            #expect(refusal?.sqlState?.rawValue == "42P17", "\(String(describing: refusal))")
        }
    }
}
