import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: schemas as frameworks write them (fixtures written for this project, in
/// `Fixtures/Schemas`): Rails' `structure.sql` (bigserial ids, `timestamp(6)`, `schema_migrations`,
/// `ar_internal_metadata`, unique indexes, `fk_rails_…`) and Hibernate's DDL (int8 ids from
/// sequences with `INCREMENT 50`, `varchar(255)`, `UK…`/`FK…` constraints, a join table with a
/// composite key and no index, an embedded composite key), Django's tables as `migrate` makes them
/// (identity ids, `_like` indexes with `varchar_pattern_ops`, deferred foreign keys, checks of
/// Positive…Fields, unique_together, `django_session` keyed by a varchar) and Prisma's (quoted
/// PascalCase tables, an enum, `TEXT` ids, `TIMESTAMP(3)`, `_prisma_migrations` and the implicit
/// many-to-many `_CategoryToPost`, with columns `A` and `B`, a unique index on both and no
/// primary key, carried as a join table of its own name, columns and key). Each imports with no
/// difference and no note, adopts, verifies clean, and a second tenant made from the imported
/// model has the same catalog (columns, defaults, constraints, indexes and sequences, names aside)
/// and the same tables.
@Suite("Importing framework schemas")
struct FrameworkSchemaImportTests {
    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: PackagePaths.root.appendingPathComponent("Tests/TenantMigratorTests/Fixtures/Schemas/\(name).sql"), encoding: .utf8)
    }

    @Test(arguments: [
        ("rails", "rails_app", [
            "    key: { type: bigserial }", "    key: [version]", "    key: [key]",
            "      createdAt: { type: \"timestamp(6) without time zone\" }",
            "      - { on: [email], unique: true }",
            "      - { on: [dueOn], where: \"(returned_at IS NULL)\" }",
        ]),
        ("hibernate", "jpa_app", [
            "    key: { type: bigint }", "    key: { type: bigint, defaultExpression: \"nextval('reader_seq'::regclass)\" }",
            "    key: [reader, title]", "  publisher_seq: { increment: 50 }", "  hibernate_sequence: {}",
            "      genres: { destination: Genre, toMany: true, indexed: false, joinOnDelete: noAction }",
            "      - \"status IN ('DRAFT', 'PUBLISHED', 'RETIRED')\"",
        ]),
        ("django", "django_app", [
            "    key: { type: integer, identity: byDefault }", "    key: [sessionKey]",
            "      - { on: [\"slug varchar_pattern_ops\"] }", "      - [user, group]", "      - \"(stock >= 0)\"",
            "      user: { destination: AuthUser, inverse: authUserGroupses, optional: false, deferred: true }",
            "      created: { type: date, defaultExpression: \"statement_timestamp()\" }",
        ]),
        ("prisma", "prisma_app", [
            "  Role: [READER, AUTHOR, ADMIN]", "      role: { type: \"enum(Role)\", default: \"READER\" }",
            "    table: Post", "    key: { type: text }", "    key: { type: serial }",
            "      price: { type: \"numeric(65,30)\", optional: true }", "      tags: { type: \"text[]\", optional: true }",
            "      updatedAt: { type: \"timestamp(3) without time zone\", column: updatedAt }",
            "      authorId: { destination: User, inverse: posts, optional: false, column: authorId, onUpdate: cascade, indexed: false }",
            "    table: _prisma_migrations", "    key: { type: \"character varying(36)\" }",
            "      posts: { destination: Post, toMany: true, inverse: categories, joinTable: _CategoryToPost, joinColumns: [A, B], joinKey: uniqueIndex, joinOnUpdate: cascade }",
            "      categories: { destination: Category, toMany: true, inverse: posts }",
        ]),
    ])
    func aFrameworkSchemaImportsAdoptsAndMakesTenantsWithTheSameCatalog(fixture: String, schema: String, expectedLines: [String]) async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript(try Self.fixture(fixture))
            let imported = try SchemaImport.read(schema: schema, versionName: "v1", on: connection)
            let yaml = imported.version.yamlText()
            #expect(imported.notes.isEmpty, "\(fixture): \(imported.notes.map(\.description))\n\(yaml)")
            #expect(imported.isAdoptable, "\(fixture): \(imported.remainingDifferences.map(\.description))\n\(yaml)")
            let lines = Set(yaml.split(separator: "\n").map(String.init))
            for line in expectedLines { #expect(lines.contains(line), "\(fixture): missing \(line) in\n\(yaml)") }
            let reloaded = try ModelVersion(name: "v1", yaml: yaml, file: "\(fixture)/v1.yaml")
            #expect(reloaded.versionHash == imported.version.versionHash)

            let adopted = try AdoptedSchema(schema, version: reloaded, family: "App", on: connection)
            let lifecycle = adopted.lifecycle
            let report = try lifecycle.verify(try tenant("adopted"), on: connection)
            #expect(report.isClean, "\(fixture): \(report.differences.map(\.description)) \(report.foreignObjects)")
            let created = try lifecycle.create(try tenant("created"), version: "v1", on: connection)
            #expect(try lifecycle.verify(try tenant("created"), on: connection).isClean, "\(fixture)")
            // (The shape names its schema in a cast of a default to an enum: `'READER'::prisma_app."Role"`.)
            let createdShape = try connection.keyedCatalogShape(of: created.schema).map { $0.replacingOccurrences(of: "::\(created.schema).", with: "::S.") }
            let originalShape = try connection.keyedCatalogShape(of: schema).map { $0.replacingOccurrences(of: "::\(schema).", with: "::S.") }
            #expect(createdShape == originalShape, "\(fixture): \(createdShape.difference(from: originalShape))")
            // Every table of the application is there, Prisma's `_` tables included.
            #expect(try connection.applicationTables(of: created.schema) == connection.applicationTables(of: schema), "\(fixture)")
        }
    }

    /// A v2 of the imported Django model adds a field with a default and a check (as a
    /// `PositiveSmallIntegerField(default=0)` would): both tenants, the adopted schema and one made
    /// from the model, migrate to it and roll back exactly (catalog, values as text, sequences).
    @Test func aV2OfTheImportedDjangoModelMigratesBothTenantsAndRollsBackExactly() async throws {
        try await migrateBothTenantsAndRollBack(
            "django", schema: "django_app", rows: 8, adding: "      discountPercent: { type: int16, default: 0, check: \"discount_percent >= 0\" }\n",
            after: "      created: { type: date, defaultExpression: \"statement_timestamp()\" }\n"
        ) { name, schema, connection throws in
            #expect(try connection.column("SELECT discount_percent::text FROM \(connection.quoteIdentifier(schema)).shop_product ORDER BY id", as: String.self)
                    == ["0", "0"], "\(name)")
            #expect(try connection.column("""
                SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' ' || pg_get_expr(d.adbin, d.adrelid)
                FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                WHERE a.attrelid = $1::regclass AND a.attname = 'discount_percent'
                """, [schema + ".shop_product"], as: String.self) == ["discount_percent smallint true 0"], "\(name)")
            #expect(try connection.column("""
                SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'c' ORDER BY 1
                """, [schema + ".shop_product"], as: String.self) == ["CHECK ((discount_percent >= 0))", "CHECK ((stock >= 0))"], "\(name)")
        }
    }

    /// A v2 of the imported Prisma model adds a field with a default and a check to `Category`,
    /// which Prisma's join table `_CategoryToPost` references: both tenants, the adopted schema and
    /// one made from the model, migrate to it and roll back exactly, `_CategoryToPost` and
    /// `_prisma_migrations` (carried by the model now) with their rows.
    @Test func aV2OfTheImportedPrismaModelMigratesBothTenantsAndRollsBackExactly() async throws {
        try await migrateBothTenantsAndRollBack(
            "prisma", schema: "prisma_app", rows: 6, adding: "      weight: { type: int32, default: 0, check: \"weight >= 0\" }\n",
            after: "      name: { type: \"character varying(64)\" }\n"
        ) { tenantName, schema, connection throws in
            let quoted = connection.quoteIdentifier(schema)
            #expect(try connection.column("SELECT weight::text FROM \(quoted).\"Category\" ORDER BY id", as: String.self) == ["0", "0"], "\(tenantName)")
            #expect(try connection.column("SELECT \"A\" || ' ' || \"B\" FROM \(quoted).\"_CategoryToPost\" ORDER BY 1", as: String.self)
                    == ["1 clx0a1b2c0000qz8h3k9f2d1e", "2 clx0a1b2c0000qz8h3k9f2d1e"], "\(tenantName)")
        }
    }

    /// Imports `fixture`'s schema as v1 and as v2 the same with the line `attribute` added after the
    /// line `anchor`, adopts the schema, makes a second tenant from v1 with the fixture's rows, then
    /// for each tenant: migrates to v2 (verify clean, sequences unchanged, `atV2`), rolls back to v1,
    /// and expects the catalog, every table's values as text and the sequences to be as before, and
    /// verify clean.
    private func migrateBothTenantsAndRollBack(
        _ fixtureName: String, schema: String, rows: Int, adding attribute: String, after anchor: String,
        atV2: (String, String, Connection) throws -> Void
    ) async throws {
        try await TestPostgres.withDatabase { connection in
            let fixture = try Self.fixture(fixtureName)
            try connection.fixtureScript(fixture)
            let v1 = try SchemaImport.read(schema: schema, versionName: "v1", on: connection).version
            let v2Text = v1.yamlText().replacingOccurrences(of: anchor, with: anchor + attribute)
            #expect(v2Text != v1.yamlText())
            let family = try ModelFamily(name: "App", versions: [v1, try ModelVersion(name: "v2", yaml: v2Text, file: "App/v2.yaml")])
            let adopted = try AdoptedSchema(schema, family: family, on: connection)
            let catalog = adopted.catalog, lifecycle = adopted.lifecycle
            let createdTenant = try lifecycle.create(try tenant("created"), version: "v1", on: connection)
            // The fixture's rows, into the new tenant.
            let rowsText = fixture[fixture.range(of: "INSERT INTO")!.lowerBound...]
            try connection.fixtureScript("SET search_path = \(connection.quoteIdentifier(createdTenant.schema));\n" + rowsText)
            let runner = TenantExecutor(catalog: catalog, planner: MigrationPlanner(family: family))
            for (name, schema) in [("adopted", schema), ("created", createdTenant.schema)] {
                let shapeBefore = try connection.keyedCatalogShape(of: schema), dataBefore = try connection.userData(of: schema)
                let sequencesBefore = try connection.sequenceValues(of: schema)
                #expect(dataBefore.count == rows, "\(name): \(dataBefore)")
                let up = try runner.migrate(try tenant(name), .migrate(to: "v2"), on: connection)
                #expect(up.outcome == .migrated, "\(name): \(up)")
                try adopted.expectClean(name, on: connection)
                try atV2(name, schema, connection)
                #expect(try connection.sequenceValues(of: schema) == sequencesBefore, "\(name)")
                let down = try runner.migrate(try tenant(name), .rollback(to: "v1"), on: connection)
                #expect(down.outcome == .migrated, "\(name): \(down)")
                #expect(try connection.keyedCatalogShape(of: schema) == shapeBefore, "\(name)")
                #expect(try connection.userData(of: schema) == dataBefore, "\(name)")
                #expect(try connection.sequenceValues(of: schema) == sequencesBefore, "\(name)")
                try adopted.expectClean(name, on: connection)
            }
        }
    }
}

extension Connection {
    /// The names of a schema's tables other than the tool's own (`_tm_…`), sorted.
    func applicationTables(of schema: String) throws -> [String] {
        try column("""
            SELECT relname::text FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind IN ('r', 'p') AND relname NOT LIKE '\\_tm\\_%' ORDER BY 1
            """, [schema], as: String.self)
    }
}
