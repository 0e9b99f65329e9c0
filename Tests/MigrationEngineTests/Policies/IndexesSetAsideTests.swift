import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// The plain secondary indexes of a large table that a policy rewrites are dropped meanwhile and
/// built again, exactly as they were; every other index stays.
@Suite("Policies: indexes set aside while a large table is rewritten")
struct IndexesSetAsideTests {
    /// A table of 1,000 rows with an index of every kind: two plain ones, and seven that must stay (the primary key and the unique constraint among them).
    private static let fixture = """
        CREATE SCHEMA s;
        CREATE TABLE s.t (id bigint PRIMARY KEY, a integer, b integer, c text, d integer, e integer);
        INSERT INTO s.t SELECT g, g % 37, g % 11, 'row ' || g, g % 5, g FROM generate_series(1, 1000) g;
        CREATE INDEX t_a ON s.t (a);
        CREATE INDEX t_b_c ON s.t (b, c DESC) WITH (fillfactor = 70);
        CREATE UNIQUE INDEX t_c_unique ON s.t (c);
        CREATE INDEX t_a_partial ON s.t (a) WHERE b > 3;
        CREATE INDEX t_c_lower ON s.t (pg_catalog.lower(c));
        CREATE INDEX t_d_commented ON s.t (d);
        COMMENT ON INDEX s.t_d_commented IS 'kept: a drop would lose this comment';
        CREATE INDEX t_d_clustered ON s.t (d, a);
        ALTER TABLE s.t CLUSTER ON t_d_clustered;
        ALTER TABLE s.t ADD CONSTRAINT t_e_key UNIQUE (e);
        ANALYZE s.t;
        """

    /// Every index of s.t, by name: its definition.
    private static func indexes(_ connection: Connection) throws -> [String: String] {
        let rows = try connection.execute("""
            SELECT c.relname::text, pg_catalog.pg_get_indexdef(i.indexrelid) FROM pg_catalog.pg_index i
            JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 's.t'::regclass
            """)
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) })
    }

    @Test func onlyPlainIndexesOfALargeTableGoAndComeBackAsTheyWere() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript(Self.fixture)
            let before = try Self.indexes(connection)
            #expect(before.count == 9)
            try connection.transaction { connection in
                // Smaller than the minimum: nothing goes.
                let small = IndexesSetAside(schema: "s", connection: connection, minimumRows: 1_001)
                #expect(try small.setAside("t") == 0)
                #expect(try Self.indexes(connection) == before)

                let large = IndexesSetAside(schema: "s", connection: connection, minimumRows: 1_000)
                #expect(try large.setAside("t") == 2)
                var kept = before
                kept["t_a"] = nil
                kept["t_b_c"] = nil
                #expect(try Self.indexes(connection) == kept)
                // Once per table.
                #expect(try large.setAside("t") == 0)
                // Rows written meanwhile are in the indexes built again.
                try connection.execute("UPDATE s.t SET a = a + 100, b = b + 100 WHERE id <= 500")
                #expect(try large.restore() == 2)
                #expect(try large.restore() == 0)
            }
            #expect(try Self.indexes(connection) == before)
            try connection.fixtureScript("SET enable_seqscan = off; SET enable_bitmapscan = off")
            #expect(try connection.scalar("SELECT count(*)::int FROM s.t WHERE a >= 100", as: Int.self) == 500)
            #expect(try connection.scalar("SELECT count(*)::int FROM s.t WHERE b >= 100", as: Int.self) == 500)
            let plan = try connection.execute("EXPLAIN SELECT count(*) FROM s.t WHERE a >= 100").map { try $0.decode(String.self, at: 0) }
            #expect(plan.contains { $0.contains("t_a") }, "\(plan)")
        }
    }

    /// An open cursor that reads an index keeps it (and the transaction goes on).
    @Test func anIndexAnOpenCursorReadsStays() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript(Self.fixture)
            let before = try Self.indexes(connection)
            try connection.transaction { connection in
                try connection.fixtureScript("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off")
                let plan = try connection.execute("EXPLAIN SELECT a FROM s.t WHERE a = 5 AND b = 3").map { try $0.decode(String.self, at: 0) }
                #expect(plan.contains { $0.contains("t_a") || $0.contains("t_b_c") }, "\(plan)")
                try connection.execute("DECLARE reading NO SCROLL CURSOR FOR SELECT a FROM s.t WHERE a = 5 AND b = 3")
                #expect(try connection.execute("FETCH 1 FROM reading").rowCount == 1)
                let setAside = IndexesSetAside(schema: "s", connection: connection, minimumRows: 1)
                #expect(try setAside.setAside("t") == 0)
                #expect(try Self.indexes(connection) == before)
                #expect(try connection.execute("FETCH 1 FROM reading").rowCount == 1)
                try connection.execute("CLOSE reading")
            }
            #expect(try Self.indexes(connection) == before)
        }
    }

    /// The Recipes ingredient policy rewrites every one of 210,000 recipe ingredients: the index on
    /// `recipe_id` is built anew (another object, the same definition), and the rows are right.
    /// When the policy fails on the last row, the tenant keeps its index as it was, at v2.
    @Test func aPolicyRewritingALargeTableBuildsItsIndexAgain() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            var policies = RecipesPolicies.registry
            policies.register("RecipeIngredientToIngredientAndUnitOfMeasure") { FailingOnRow(id: 210_000) }
            let failing = try makeRecipesMigrator(conninfo, policies: policies)
            let migrator = try makeRecipesMigrator(conninfo, policies: RecipesPolicies.registry)
            let schema = try await migrator.createTenant("large", version: "v2").schema
            try connection.fixtureScript("""
                INSERT INTO \(schema).recipe (id, name, type) SELECT g, 'Recipe ' || g, 'Other' FROM generate_series(1, 1000) g;
                INSERT INTO \(schema).recipe_ingredient (id, name, unit_of_measure, recipe_id)
                    SELECT g, 'Ingredient ' || (g % 300), 'unit ' || (g % 300 % 7), (g * 7919) % 1000 + 1 FROM generate_series(1, 210000) g;
                ANALYZE \(schema).recipe_ingredient;
                """)
            let index = "SELECT c.oid::int8, pg_catalog.pg_get_indexdef(c.oid) FROM pg_catalog.pg_class c WHERE c.oid = '\(schema).recipe_ingredient_recipe_id_idx'::regclass"
            let before = try connection.execute(unsafeSQL: index)[0]
            let (oid, definition) = (try before.decode(Int64.self, at: 0), try before.decode(String.self, at: 1))

            await #expect(throws: (any Error).self) { _ = try await failing.migrate(tenant: "large", to: "v3") }
            let afterFailure = try connection.execute(unsafeSQL: index)[0]
            #expect(try afterFailure.decode(Int64.self, at: 0) == oid)
            #expect(try await migrator.tenants().first { $0.name.rawValue == "large" }?.version == "v2")

            _ = try await migrator.migrate(tenant: "large", to: "v3")
            let after = try connection.execute(unsafeSQL: index)[0]
            #expect(try after.decode(Int64.self, at: 0) != oid, "the index was not built again")
            #expect(try after.decode(String.self, at: 1) == definition)
            #expect(try connection.scalar("""
                SELECT count(*)::int FROM \(schema).recipe_ingredient ri JOIN \(schema).ingredient i ON i.id = ri.ingredient_id
                WHERE i.name = 'Ingredient ' || (ri.id % 300) AND ri.recipe_id = (ri.id * 7919) % 1000 + 1
                """, as: Int.self) == 210_000)
            #expect(try await verifyClean(migrator, "large"))
        }
    }
}

/// The Recipes ingredient policy, failing on one row.
private struct FailingOnRow: MigrationPolicy {
    let id: Int64
    let real = RecipeIngredientToIngredientAndUnitOfMeasure()
    var transforms: [String] { real.transforms }
    var loses: [PolicyLoss] { real.loses }

    func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        if source.id == id { throw TestFailure("row \(id) fails") }
        try real.createDestinationInstances(for: source, in: context)
    }
}
