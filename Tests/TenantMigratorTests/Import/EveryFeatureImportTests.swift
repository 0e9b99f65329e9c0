import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34, "Must show": one schema written by hand that uses every feature the model carries
/// (`Fixtures/Schemas/market.sql`: every PostgreSQL type of the issue, two enums, expression
/// defaults, serial, integer, identity and uuid ids, natural and composite keys,
/// `schema_migrations`, deferred foreign keys with actions, with and without an index, checks per
/// column and per table, a composite unique constraint and index, partial, expression, GIN and
/// hash indexes, `varchar_pattern_ops`, checks and a partial index that compare with enum values,
/// quoted names and comments). `model import` reports no
/// difference and no note; `tenant adopt` and `verify` are clean; a second tenant made from the
/// imported model has the same catalog (columns by `format_type`, defaults, constraints, indexes,
/// sequences, enum values and comments, names aside); and a v2 that lengthens a varchar, adds an
/// enum value, a check and a composite unique, and narrows a numeric migrates both tenants and
/// rolls back exactly.
@Suite("Importing a schema with every feature")
struct EveryFeatureImportTests {
    static let schema = "market"

    static func fixture() throws -> String {
        try FrameworkSchemaImportTests.fixture(schema)
    }

    /// What a tenant's schema must keep, names of its own aside: the catalog with its sequences,
    /// the enum types with their values, and the comments.
    static func catalog(of schema: String, on connection: Connection) throws -> [String] {
        try connection.keyedCatalogShape(of: schema).map { $0.replacingOccurrences(of: "::\(schema).", with: "::S.") }
            + EnumImportTests.enumValues(of: schema, on: connection)
            + CommentImportTests.comments(of: schema, on: connection)
    }

    @Test func theImportHasNoDifferenceAndANewTenantHasTheSameCatalog() async throws {
        try await TestPostgres.withDatabase { connection in
            let (imported, reloaded) = try cleanImport(Self.schema, made: [try Self.fixture()], lines: [
                "enums:", "  PayMethod: [card, invoice]", "  order_state: [cart, placed, shipped]",
                "sequences:", "  order_number_seq: { start: 1000, increment: 10 }",
            ], file: "Market/v1.yaml", on: connection)
            #expect(imported.foreignObjects.isEmpty, "\(imported.foreignObjects)")
            let adopted = try AdoptedSchema(Self.schema, version: reloaded, family: "Market", on: connection)
            try adopted.expectClean(on: connection)
            let created = try adopted.expectNewTenantLikeTheAdopted(Self.schema, shape: { try Self.catalog(of: $0, on: connection) }, on: connection)
            try adopted.expectClean("created", on: connection)
            #expect(try connection.applicationTables(of: created.schema) == connection.applicationTables(of: Self.schema))
        }
    }

    /// v2 lengthens a varchar, adds an enum value, a check and a composite unique, and narrows a
    /// numeric: the adopted schema and a tenant made from v1 (with the fixture's rows) migrate to it
    /// and roll back exactly (catalog, enum values, comments, sequences and every table's values).
    @Test func aV2MigratesBothTenantsAndRollsBackExactly() async throws {
        try await TestPostgres.withDatabase { connection in
            let fixture = try Self.fixture()
            let (v1, v2) = try importedChange([fixture], schema: Self.schema, file: "Market/v2.yaml", on: connection) { yaml in
                yaml.replacingOccurrences(of: "email: { type: \"character varying(255)\",", with: "email: { type: \"character varying(320)\", allowsNarrowing: true,")
                    .replacingOccurrences(of: "order_state: [cart, placed, shipped]", with: "order_state: [cart, placed, cancelled, shipped]")
                    .replacingOccurrences(of: "unitPrice: { type: \"numeric(12,2)\" }", with: "unitPrice: { type: \"numeric(10,2)\", allowsNarrowing: true, check: \"unit_price >= 0\" }")
                    .replacingOccurrences(of: "  OrderLine:\n", with: "  OrderLine:\n    uniques:\n      - [order, product]\n")
            }
            #expect(v2.versionHash != v1.versionHash)
            let family = try ModelFamily(name: "Market", versions: [v1, v2])
            let adopted = try AdoptedSchema(Self.schema, family: family, on: connection)
            let created = try adopted.lifecycle.create(try tenant("created"), version: "v1", on: connection)
            let rows = fixture[fixture.range(of: "INSERT INTO")!.lowerBound...]
            try connection.fixtureScript("SET search_path = \(connection.quoteIdentifier(created.schema));\n" + rows)
            let runner = TenantExecutor(catalog: adopted.catalog, planner: MigrationPlanner(family: family))
            for (name, schema) in [("adopted", Self.schema), ("created", created.schema)] {
                #expect(try connection.userData(of: schema).count == 7, "\(name)")
                try expectThereAndBack(name, in: schema, runner: runner, lifecycle: adopted.lifecycle, kept: {
                    [try Self.catalog(of: $0, on: connection), try connection.sequenceValues(of: $0)]
                }, on: connection) { (schema: String) throws in
                    #expect(try connection.column("""
                        SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
                        JOIN pg_class c ON c.oid = a.attrelid WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r'
                        AND a.attname IN ('email', 'unit_price') ORDER BY 1
                        """, [schema], as: String.self) == ["customer.email character varying(320)", "order_line.unit_price numeric(10,2)"], "\(name)")
                    #expect(try EnumImportTests.enumValues(of: schema, on: connection) == ["PayMethod card,invoice", "order_state cart,placed,cancelled,shipped"], "\(name)")
                    #expect(try connection.column("""
                        SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('c', 'u') ORDER BY 1
                        """, [schema + ".order_line"], as: String.self)
                        == ["CHECK ((quantity > 0))", "CHECK ((unit_price >= (0)::numeric))", "UNIQUE (order_id, product_id)"], "\(name)")
                }
            }
        }
    }
}
