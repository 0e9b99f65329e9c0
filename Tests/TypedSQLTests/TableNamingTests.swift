import TypedSQL
import Testing

/// The names a statement gives in the tenant's schema (tables, their indexes, constraints and
/// sequences, the model's enum types) go through a table naming when it is rendered: the model's
/// own names by default, byte for byte as before, or a shadow's (`_tm_shadow_<name>`) for a
/// shadow built inside the tenant's schema (Citus, docs/Citus.md).
struct TableNamingTests {
    /// One statement of each kind the steps and the model's DDL send.
    let statements: [SQL] = [
        "CREATE TABLE \(table: "recipe") (\(id: "id") bigint, CONSTRAINT \(objectName: "recipe_pkey") PRIMARY KEY (\(id: "id")))",
        "ALTER TABLE \(table: "recipe") RENAME TO \(objectName: "dish")",
        "CREATE INDEX \(objectName: "recipe_name_idx") ON \(table: "recipe") (\(id: "name"))",
        "SELECT pg_catalog.setval(pg_catalog.pg_get_serial_sequence(\(qualifiedNameLiteral: "recipe"), 'id'), \(bind: 3))",
        "UPDATE \(table: "recipe") SET \(id: "unit") = \(literal: "g")::\(table: "unit") FROM \(schema: "other", table: "recipe") AS o",
    ]

    @Test func theModelsNamingRendersEveryStatementAsBefore() {
        let rendered = statements.map { $0.text(schema: "tenant_a") }
        #expect(rendered == [
            #"CREATE TABLE "tenant_a"."recipe" ("id" bigint, CONSTRAINT "recipe_pkey" PRIMARY KEY ("id"))"#,
            #"ALTER TABLE "tenant_a"."recipe" RENAME TO "dish""#,
            #"CREATE INDEX "recipe_name_idx" ON "tenant_a"."recipe" ("name")"#,
            #"SELECT pg_catalog.setval(pg_catalog.pg_get_serial_sequence('"tenant_a"."recipe"', 'id'), 3)"#,
            #"UPDATE "tenant_a"."recipe" SET "unit" = 'g'::"tenant_a"."unit" FROM "other"."recipe" AS o"#,
        ])
        #expect(statements.map { $0.text(schema: "tenant_a", tables: .model) } == rendered)
        #expect(statements.map { $0.renamed(tables: .model) } == statements)
        #expect(statements[3].parameterized(schema: "tenant_a").text == #"SELECT pg_catalog.setval(pg_catalog.pg_get_serial_sequence('"tenant_a"."recipe"', 'id'), $1)"#)
    }

    @Test func aShadowsNamingPrefixesTheSchemasNamesButNotColumnsValuesOrOtherSchemas() {
        let rendered = statements.map { $0.text(schema: "tenant_a", tables: .citusShadow) }
        #expect(rendered == [
            #"CREATE TABLE "tenant_a"."_tm_shadow_recipe" ("id" bigint, CONSTRAINT "_tm_shadow_recipe_pkey" PRIMARY KEY ("id"))"#,
            #"ALTER TABLE "tenant_a"."_tm_shadow_recipe" RENAME TO "_tm_shadow_dish""#,
            #"CREATE INDEX "_tm_shadow_recipe_name_idx" ON "tenant_a"."_tm_shadow_recipe" ("name")"#,
            #"SELECT pg_catalog.setval(pg_catalog.pg_get_serial_sequence('"tenant_a"."_tm_shadow_recipe"', 'id'), 3)"#,
            #"UPDATE "tenant_a"."_tm_shadow_recipe" SET "unit" = 'g'::"tenant_a"."_tm_shadow_unit" FROM "other"."recipe" AS o"#,
        ])
        let (text, values) = statements[3].parameterized(schema: "tenant_a", tables: .citusShadow)
        #expect(text == #"SELECT pg_catalog.setval(pg_catalog.pg_get_serial_sequence('"tenant_a"."_tm_shadow_recipe"', 'id'), $1)"#)
        #expect(values == [.integer(3)])
    }

    /// A statement renamed for the shadow renders, with the model's naming, what it renders with
    /// the shadow's: the form that goes through LibPQ, which renders with the schema alone.
    @Test func aStatementRenamedForAShadowRendersAsItsNamingWould() {
        for sql in statements {
            #expect(sql.renamed(tables: .citusShadow).text(schema: "s") == sql.text(schema: "s", tables: .citusShadow))
        }
        let fixed = statements[1].naming(schema: "delta", tables: .citusShadow)
        #expect(!fixed.usesTenantSchema)
        #expect(fixed.text(schema: "ignored") == #"ALTER TABLE "delta"."_tm_shadow_recipe" RENAME TO "_tm_shadow_dish""#)
    }

    /// PostgreSQL cuts a name at 63 bytes: two long names could become one, so the names whose
    /// shadow name would not fit are found before anything is built.
    @Test func namesTooLongForTheShadowAreFound() {
        let fits = String(repeating: "a", count: 63 - TableNaming.citusShadow.prefix.utf8.count)
        let long = fits + "b"
        #expect(TableNaming.citusShadow.tooLong([fits, long, "recipe"]) == [long])
        #expect(TableNaming.model.tooLong([fits, long]).isEmpty)
        #expect(TableNaming.model.name("recipe") == "recipe" && TableNaming.citusShadow.name("recipe") == "_tm_shadow_recipe")
    }

    /// A table the server names in an error, spelled under a naming, is the model's table of that
    /// name without the naming's prefix; a name the naming does not spell is none of its tables.
    @Test func theModelsNameOfASpelledNameDropsTheNamingsPrefix() {
        #expect(TableNaming.model.modelName(of: "recipe") == "recipe")
        #expect(TableNaming.citusShadow.modelName(of: "_tm_shadow_recipe") == "recipe")
        #expect(TableNaming.citusDelta.modelName(of: "_tm_delta_recipe") == "recipe")
        #expect(TableNaming.citusShadow.modelName(of: "_tm_delta_recipe") == nil)
        #expect(TableNaming.citusShadow.modelName(of: "recipe") == nil)
        for name in ["recipe", "_tm_shadow_dish"] {
            #expect(TableNaming.citusShadow.modelName(of: TableNaming.citusShadow.name(name)) == name)
        }
    }
}
