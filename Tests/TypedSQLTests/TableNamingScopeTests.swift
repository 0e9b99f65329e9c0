import TypedSQL
import Testing

/// A naming handed down to everything a call renders for one schema
/// (``TableNaming/rendering(_:in:_:)``): how the step executor addresses a shadow inside the
/// tenant's schema without each callee being given the naming.
struct TableNamingScopeTests {
    let statement: SQL = "INSERT INTO \(table: "recipe") SELECT * FROM \(schema: "other", table: "recipe") WHERE \(id: "id") = \(bind: 1)"

    @Test func insideTheScopeStatementsForItsSchemaTakeItsNamingAndOthersDoNot() {
        let model = statement.text(schema: "tenant_a")
        TableNaming.rendering(.citusShadow, in: "tenant_a") {
            #expect(statement.text(schema: "tenant_a") == statement.text(schema: "tenant_a", tables: .citusShadow))
            #expect(statement.parameterized(schema: "tenant_a").text == statement.parameterized(schema: "tenant_a", tables: .citusShadow).text)
            #expect(statement.naming(schema: "tenant_a") == statement.naming(schema: "tenant_a", tables: .citusShadow))
            // Another schema (pg_temp, a round's delta, the catalog's) and an explicit naming are not touched.
            #expect(statement.text(schema: "pg_temp") == #"INSERT INTO "pg_temp"."recipe" SELECT * FROM "other"."recipe" WHERE "id" = 1"#)
            #expect(statement.text(schema: "tenant_a", tables: .model) == model)
            // The innermost scope wins.
            TableNaming.rendering(.model, in: "tenant_a") { #expect(statement.text(schema: "tenant_a") == model) }
        }
        #expect(statement.text(schema: "tenant_a") == model)
        #expect(model == #"INSERT INTO "tenant_a"."recipe" SELECT * FROM "other"."recipe" WHERE "id" = 1"#)
    }

    @Test func theScopeEndsWithTheCallEvenWhenItThrows() {
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try TableNaming.rendering(.citusShadow, in: "tenant_a") { () throws -> Void in throw Stop() }
        }
        #expect(TableNaming.current(for: "tenant_a") == .model)
    }
}
