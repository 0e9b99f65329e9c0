import TypedSQL
import LibPQ
import PostgresTestSupport
import Testing

/// The connection-free quoting writes exactly what libpq writes, and PostgreSQL reads it back.
struct PostgreSQLQuotingTests {
    static let samples = [
        "", "recipe", "Recipe", "tenant \"a\"", "it's", "back\\slash", "both ' and \\", "\"", "'", "\\",
        "ünïcödé", "e\u{301}\"\u{301}", "line\nbreak", "tab\there", "emoji 🥘", "$1", "a\"\"b", "semi;colon -- comment",
    ]

    @Test func samplesQuoteAsLibPQQuotesThem() async throws {
        try await TestPostgres.withDatabase { connection in
            for sample in Self.samples {
                #expect(PostgreSQLQuoting().quoteIdentifier(sample) == connection.quoteIdentifier(sample), "\(sample.debugDescription)")
                #expect(PostgreSQLQuoting().quoteLiteral(sample) == connection.quoteLiteral(sample), "\(sample.debugDescription)")
            }
        }
    }

    @Test func generatedTextQuotesAsLibPQQuotesItAndReadsBack() async throws {
        var generator = SeededGenerator(seed: 17)
        let alphabet = Array("ab'\"\\ \n;é🥘$-")
        try await TestPostgres.withDatabase { connection in
            for _ in 0..<300 {
                let text = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
                let literal = PostgreSQLQuoting().quoteLiteral(text)
                #expect(literal == connection.quoteLiteral(text))
                #expect(PostgreSQLQuoting().quoteIdentifier(text) == connection.quoteIdentifier(text))
                let back = try connection.execute(unsafeSQL: "SELECT \(literal)::text").first?.decode(String.self, at: 0)
                #expect(back == text, "\(text.debugDescription) came back as \(String(describing: back).debugDescription)")
            }
        }
    }

    @Test func aNULEndsTheTextAsInC() {
        #expect(PostgreSQLQuoting().quoteIdentifier("ab\0cd") == "\"ab\"")
        #expect(PostgreSQLQuoting().quoteLiteral("it's\0\\") == "'it''s'")
    }
}
