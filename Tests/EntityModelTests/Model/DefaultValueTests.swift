import EntityModel
import Testing

/// How defaults render in DDL (the quoting itself is libpq's; see the golden tests).
struct DefaultValueTests {
    let quoter = PlainQuoter()

    @Test func literals() {
        #expect(DefaultValue.string("Other").sqlExpression(for: .text, quoting: quoter) == "'Other'")
        #expect(DefaultValue.string("Entrée's").sqlExpression(for: .text, quoting: quoter) == "'Entrée''s'")
        #expect(DefaultValue.integer(42).sqlExpression(for: .integer, quoting: quoter) == "42")
        #expect(DefaultValue.integer(-7).sqlExpression(for: .smallint, quoting: quoter) == "-7")
        #expect(DefaultValue.decimal("12.50").sqlExpression(for: .numeric, quoting: quoter) == "12.50")
        #expect(DefaultValue.floatingPoint(0.5).sqlExpression(for: .doublePrecision, quoting: quoter) == "0.5")
        #expect(DefaultValue.floatingPoint(-.infinity).sqlExpression(for: .real, quoting: quoter) == "'-Infinity'::real")
        #expect(DefaultValue.bool(true).sqlExpression(for: .boolean, quoting: quoter) == "true")
        #expect(DefaultValue.date("2024-01-01T00:00:00Z").sqlExpression(for: .timestamptz, quoting: quoter)
            == "'2024-01-01T00:00:00Z'::timestamptz")
        #expect(DefaultValue.uuid("123e4567-e89b-12d3-a456-426614174000").sqlExpression(for: .uuid, quoting: quoter)
            == "'123e4567-e89b-12d3-a456-426614174000'::uuid")
        #expect(DefaultValue.binary([0, 255]).sqlExpression(for: .bytea, quoting: quoter) == "'\\x00ff'::bytea")
        #expect(DefaultValue.json("{}").sqlExpression(for: .jsonb, quoting: quoter) == "'{}'::jsonb")
    }
}
