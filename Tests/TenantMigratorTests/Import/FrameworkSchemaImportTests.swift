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
/// many-to-many `_CategoryToPost`). Each imports with no difference and no
/// note, adopts, verifies clean, and a second tenant made from the imported model has the same
/// catalog (columns, defaults, constraints, indexes and sequences, names aside).
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
        ("prisma", "prisma_app", []),
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

            let catalog = TenantCatalog()
            try catalog.install(on: connection)
            let lifecycle = TenantLifecycle(catalog: catalog, family: try ModelFamily(name: "App", versions: [reloaded]))
            try lifecycle.adopt(try tenant("adopted"), schema: schema, on: connection)
            let report = try lifecycle.verify(try tenant("adopted"), on: connection)
            #expect(report.isClean, "\(fixture): \(report.differences.map(\.description)) \(report.foreignObjects)")
            let created = try lifecycle.create(try tenant("created"), version: "v1", on: connection)
            #expect(try lifecycle.verify(try tenant("created"), on: connection).isClean, "\(fixture)")
            let createdShape = try connection.keyedCatalogShape(of: created.schema), originalShape = try connection.keyedCatalogShape(of: schema)
            #expect(createdShape == originalShape, "\(fixture): \(createdShape.difference(from: originalShape))")
            // The shapes leave out tables whose names start with `_`; the application's own such
            // tables (Prisma's) must be there too.
            #expect(try connection.applicationTables(of: created.schema) == connection.applicationTables(of: schema), "\(fixture)")
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
