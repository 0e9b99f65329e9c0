import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// ExpressionTrust's probe makes the tables that carry expressions as temporary tables: a column
/// of one of the model's enum types, and a default drawing from one of its sequences, must be
/// made there too, or a model using enums or sequences beside an expression could not migrate.
struct ExpressionTrustTests {
    static let version = """
        enums:
          item_state: [new, sold]
        sequences:
          item_code_seq: { increment: 50 }
        entities:
          Item:
            attributes:
              state: { type: "enum(item_state)", default: new }
              code: { type: int64, defaultExpression: "nextval('item_code_seq'::regclass)" }
              name: { type: string, check: "length(name) > 0" }

        """

    @Test func enumColumnsAndSequenceDefaultsBesideAnExpressionAreProbedAndNothingStays() async throws {
        let version = try ModelVersion(name: "v1", yaml: Self.version, file: "v1.yaml")
        try await TestPostgres.withDatabase { connection in
            try connection.execute("SET search_path = pg_catalog, pg_temp")
            try connection.transaction { connection in
                try ExpressionTrust(version: version).check(on: connection)
                let left = try connection.execute("""
                    SELECT count(*) FROM pg_catalog.pg_class WHERE relnamespace = pg_catalog.pg_my_temp_schema()
                    """)[0].decode(Int64.self, at: 0)
                #expect(left == 0)
            }
        }
    }
}
