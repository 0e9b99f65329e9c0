import TypedSQL
import Testing

/// Typed SQL renders for any schema, with values inline for a plan or as parameters to run, and
/// needs no server.
struct SQLTests {
    @Test func namesAreQuotedAndTheSchemaIsNamedOnlyWhenRendered() {
        let sql: SQL = "ALTER TABLE \(table: "Recipe") RENAME COLUMN \(id: "na\"me") TO \(id: "title")"
        #expect(sql.text(schema: "tenant_acme") == #"ALTER TABLE "tenant_acme"."Recipe" RENAME COLUMN "na""me" TO "title""#)
        #expect(sql.text(schema: "Tenant B") == #"ALTER TABLE "Tenant B"."Recipe" RENAME COLUMN "na""me" TO "title""#)
        #expect(sql.description == #"ALTER TABLE "<schema>"."Recipe" RENAME COLUMN "na""me" TO "title""#)
    }

    @Test func valuesAreParametersToRunAndLiteralsToShow() {
        let sql: SQL = "UPDATE \(table: "t") SET \(id: "a") = \(bind: .text("it's")) WHERE \(id: "n") > \(bind: .integer(3)) AND \(id: "b") IS \(bind: .null)"
        let (text, values) = sql.parameterized(schema: "s")
        #expect(text == #"UPDATE "s"."t" SET "a" = $1 WHERE "n" > $2 AND "b" IS $3"#)
        #expect(values == [.text("it's"), .integer(3), .null])
        #expect(sql.text(schema: "s") == #"UPDATE "s"."t" SET "a" = 'it''s' WHERE "n" > 3 AND "b" IS NULL"#)
    }

    @Test func piecesNestAndJoin() {
        let columns: [SQL] = ["\(id: "a") = 1", "\(id: "b") = \(literal: "x\\y")"]
        let sql: SQL = "UPDATE \(table: "t") SET \(columns, joinedBy: ", ") WHERE \(id: "entity") IN (\(literals: ["A", "B"]))"
        #expect(sql.text(schema: "s") == #"UPDATE "s"."t" SET "a" = 1, "b" =  E'x\\y' WHERE "entity" IN ('A', 'B')"#)
        #expect((SQL("SELECT 1") + " FROM \(ids: ["x", "y"])").text(schema: "s") == #"SELECT 1 FROM "x", "y""#)
        let merged: SQL = "a\(SQL("b"))c"
        #expect(merged.fragments == [.text("abc")], "adjacent text merges into one fragment")
    }

    @Test func aTableNameAsAStringConstantQuotesTheSchemaToo() {
        let sql: SQL = "SELECT pg_catalog.pg_get_serial_sequence(\(qualifiedNameLiteral: "recipe"), 'id')"
        #expect(sql.text(schema: "Tenant A") == #"SELECT pg_catalog.pg_get_serial_sequence('"Tenant A"."recipe"', 'id')"#)
    }

    @Test func namesInAGivenSchemaNumbersKeywordsAndCommentsAreTyped() {
        enum Lock: String, CaseIterable { case share = "SHARE", exclusive = "ACCESS EXCLUSIVE" }
        let sql: SQL = "LOCK TABLE \(schema: "cat\"alog", table: "tenants") IN \(keyword: Lock.exclusive) MODE -- \(comment: "a\nDROP TABLE x") \(int: 42)"
        #expect(sql.text(schema: "ignored") == #"LOCK TABLE "cat""alog"."tenants" IN ACCESS EXCLUSIVE MODE -- a DROP TABLE x 42"#)
        #expect(!sql.usesTenantSchema)
        #expect(("SELECT \(bind: "x") FROM \(table: "t")" as SQL).usesTenantSchema)
    }

    @Test func aStatementOverOneSchemaGoesInsideOneRenderedForAnother() {
        let inner: SQL = "SELECT * FROM \(table: "t") WHERE pg_catalog.to_regclass(\(qualifiedNameLiteral: "t")) IS NOT NULL"
        let outer: SQL = "INSERT INTO \(table: "t") \(inner.naming(schema: "delta"))"
        #expect(outer.text(schema: "shadow") == #"INSERT INTO "shadow"."t" SELECT * FROM "delta"."t" WHERE pg_catalog.to_regclass('"delta"."t"') IS NOT NULL"#)
    }
}
