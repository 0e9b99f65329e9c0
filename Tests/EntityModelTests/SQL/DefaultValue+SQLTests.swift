import EntityModel
import LibPQ
import PostgresTestSupport
import Testing
import TypedSQL

/// Every type's default, rendered through libpq's quoting, run on PostgreSQL, and read back.
struct DefaultValueSQLTests {
    /// Numbers and Booleans render bare, as they always did; a non-finite float as a cast constant.
    @Test func numbersAndBooleansRenderBare() {
        let rendered: [(DefaultValue, SQLType, String)] = [
            (.integer(-9_223_372_036_854_775_808), .bigint, "-9223372036854775808"), (.integer(42), .integer, "42"),
            (.decimal("12.50"), .numeric, "12.50"), (.decimal("-1.5e-3"), .numeric, "-1.5e-3"),
            (.floatingPoint(0.5), .doublePrecision, "0.5"), (.floatingPoint(1e-05), .real, "1e-05"), (.floatingPoint(-3), .real, "-3.0"),
            (.floatingPoint(.infinity), .real, "'Infinity'::real"), (.floatingPoint(-.infinity), .doublePrecision, "'-Infinity'::double precision"),
            (.bool(true), .boolean, "true"), (.bool(false), .boolean, "false"),
        ]
        for (value, type, text) in rendered {
            #expect(value.sql(for: type).text(schema: "s") == text)
        }
    }

    /// A decimal's text that is no number (a default decoded from JSON, which the version file's
    /// check never saw) goes in as a constant, not as SQL.
    @Test func aDecimalThatIsNoNumberIsAConstant() {
        #expect(DefaultValue.decimal("1; DROP TABLE x").sql(for: .numeric).text(schema: "s") == "'1; DROP TABLE x'::numeric")
    }

    @Test func everyDefaultRoundTrips() async throws {
        let model = try version(#"""
            entities:
              Sample:
                attributes:
                  text: { type: string, default: "Entrée's \\ back" }
                  small: { type: int16, default: -32768 }
                  regular: { type: int32, default: 42 }
                  big: { type: int64, default: 9223372036854775807 }
                  exact: { type: decimal, default: "12.50" }
                  ratio: { type: double, default: 0.5 }
                  limit: { type: float, default: .inf }
                  flag: { type: bool, default: true }
                  moment: { type: date, default: "2024-06-01T12:00:00+02:00" }
                  code: { type: uuid, default: "123E4567-E89B-12D3-A456-426614174000" }
                  bytes: { type: binary, default: "AQI=" }
                  document: { type: json, default: { b: [1, true, null], a: "x" } }
            """#)
        try await TestPostgres.withDatabase { connection in
            let schema = "tenant_defaults"
            _ = try connection.fixtureScript("CREATE SCHEMA \(connection.quoteIdentifier(schema))")
            _ = try connection.fixtureScript(model.relationalSchema().renderScript(inSchema: schema, quoting: .postgreSQL))
            _ = try connection.fixtureScript("SET search_path TO \(connection.quoteIdentifier(schema))")
            _ = try connection.execute("INSERT INTO sample DEFAULT VALUES")
            let row = try #require(try connection.execute("""
                SELECT text, small::text, regular::text, big::text, exact::text, ratio::text, "limit"::text, flag::text,
                       (moment AT TIME ZONE 'UTC')::text, code::text, encode(bytes, 'hex'), document::text
                FROM sample
                """).first)
            #expect((0..<12).map { row[$0] } == [
                "Entrée's \\ back", "-32768", "42", "9223372036854775807", "12.50", "0.5", "Infinity", "true",
                "2024-06-01 10:00:00", "123e4567-e89b-12d3-a456-426614174000", "0102", #"{"a": "x", "b": [1, true, null]}"#,
            ])
        }
    }
}
