import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 34 on Citus: an adopted distributed schema keeps its own names of indexes and constraints.
/// A step that changes its check, makes its foreign key cascade and drops its index addresses them
/// by the tenant's names (Citus cannot rename a constraint that owns no index on a distributed
/// table, so nothing is renamed first); it migrates, verifies clean and comes back with every value.
@Suite("Citus: adopted schemas' own names", .serialized, .enabled(if: citusURL != nil, "TEST_CITUS_URL is not set: run scripts/citus-cluster.sh start and export the URL it prints"))
struct CitusAdoptedNamesTests {
    @Test func anAdoptedDistributedSchemaChangesItsOwnCheckForeignKeyAndIndex() async throws {
        try await CitusFixture.with { fixture in
            let connection = fixture.connection
            let name = fixture.prefix + "shop", schema = "tenant_" + fixture.prefix + "shop"
            let q = connection.quoteIdentifier(schema)
            for statement in [
                "CREATE SCHEMA \(q)",
                "CREATE TABLE \(q).owners (id bigserial PRIMARY KEY, name text NOT NULL)",
                "CREATE TABLE \(q).items (id bigserial PRIMARY KEY, code varchar(20) NOT NULL, qty integer NOT NULL DEFAULT 0, owner_id bigint, "
                    + "CONSTRAINT qty_not_negative CHECK (qty >= 0), CONSTRAINT owner_fk FOREIGN KEY (owner_id) REFERENCES \(q).owners (id) ON DELETE SET NULL)",
                "CREATE INDEX index_items_on_code ON \(q).items (code)",
                "CREATE INDEX index_items_on_owner_id ON \(q).items (owner_id)",
                "SELECT citus_schema_distribute('\(schema)')",
                "INSERT INTO \(q).owners (name) VALUES ('o1'), ('o2')",
                "INSERT INTO \(q).items (code, qty, owner_id) VALUES ('a', 1, 1), ('b', 2, 2), ('c', 3, NULL)",
            ] { _ = try connection.execute(unsafeSQL: statement) }
            #expect(try fixture.isDistributed(schema))
            let v1 = try SchemaImport.read(schema: schema, versionName: "v1", on: connection).version
            let v1Text = v1.yamlText()
            let v2Text = v1Text.replacingOccurrences(of: "(qty >= 0)", with: "(qty >= -1)")
                .replacingOccurrences(of: "code: { type: \"character varying(20)\", indexed: true }", with: "code: { type: \"character varying(20)\" }")
                .replacingOccurrences(of: "itemses: { destination: Items, toMany: true, inverse: owner }",
                                      with: "itemses: { destination: Items, toMany: true, inverse: owner, deleteRule: cascade }")
            #expect(v2Text.components(separatedBy: "\n").count == v1Text.components(separatedBy: "\n").count)
            #expect(!v2Text.contains("(qty >= 0)") && v2Text.contains("deleteRule: cascade") && !v2Text.contains("indexed: true"), "\(v1Text)")
            let family = try ModelFamily(name: "Shop", versions: [v1, try ModelVersion(name: "v2", yaml: v2Text, file: "v2.yaml")])
            try fixture.catalog.install(on: connection)
            let lifecycle = TenantLifecycle(catalog: fixture.catalog, family: family)
            let tenant = try TenantName(name)
            try lifecycle.adopt(tenant, schema: schema, on: connection)
            #expect(try lifecycle.verify(tenant, on: connection).isClean)
            func values() throws -> [String] {
                try connection.column("SELECT to_jsonb(t)::text FROM \(q).items t UNION ALL SELECT to_jsonb(o)::text FROM \(q).owners o ORDER BY 1", as: String.self)
            }
            let before = try values()

            let runner = TenantExecutor(catalog: fixture.catalog, planner: MigrationPlanner(family: family))
            let up = try runner.migrate(tenant, .migrate(to: "v2"), on: connection)
            #expect(up.outcome == .migrated, "\(up)")
            let report = try lifecycle.verify(tenant, on: connection)
            #expect(report.isClean, "\(report.differences.map(\.description))")
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_constraint WHERE connamespace = $1::regnamespace AND conname IN ('qty_not_negative', 'owner_fk')", [schema], as: Int.self) == 0)

            let down = try runner.migrate(tenant, .rollback(to: "v1"), on: connection)
            #expect(down.outcome == .migrated, "\(down)")
            #expect(try lifecycle.verify(tenant, on: connection).isClean)
            #expect(try values() == before)
            #expect(try fixture.isDistributed(schema))
            #expect(try fixture.preparedTransactions() == 0)
        }
    }
}
