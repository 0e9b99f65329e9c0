import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 22: a rollback re-adds columns at the end of their tables. `verify --strict` reports it;
/// a small table gets its model order back.
@Suite("Column order after a rollback")
struct ColumnOrderTests {
    static func columns(_ connection: Connection, _ schema: String) throws -> [String] {
        try connection.rows("SELECT attname::text FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
                            ["\(schema).item"]).map { $0[0]! }
    }

    @Test func aSmallTableGetsItsModelOrderBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("DropSteps", conninfo, insert: ArchivePlanPairsTests.rows)
            let fresh = try Self.columns(connection, schema)
            #expect(fresh == ["id", "a", "b", "name"])
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try Self.columns(connection, schema) == fresh)
            #expect(try ArchivePlanPairsTests.items(connection, schema) == ArchivePlanPairsTests.expected)
            let reports = try await migrator.verify(tenants: ["acme"], strict: true)
            #expect(reports.map(\.isClean) == [true], "\(reports.map { ($0.differences, $0.columnOrder) })")
        }
    }

    @Test func aLargeTableKeepsItsOrderAndVerifyStrictSaysSo() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let rows = "INSERT INTO {schema}.item (name, a, b) SELECT 'n' || g, 'a' || g, g FROM generate_series(1, 10001) AS g"
            let (migrator, connection, schema) = try await fixtureTenantMigratedToV2("DropSteps", conninfo, insert: rows)
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try Self.columns(connection, schema) == ["id", "b", "name", "a"])
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).item WHERE a = 'a' || b", as: Int.self) == 10001)
            // Plain verify compares columns by name; --strict reports the order.
            #expect(try await migrator.verify(tenants: ["acme"]).map(\.isClean) == [true])
            let strict = try await migrator.verify(tenants: ["acme"], strict: true)
            #expect(strict.first?.columnOrder == [ColumnOrderDifference(table: "item", expected: ["id", "a", "b", "name"], actual: ["id", "b", "name", "a"])])
            #expect(strict.first?.isClean == false)
        }
    }

    /// A column re-created to put the table back in order keeps the rights it had of its own
    /// (`GRANT SELECT (name) …`, as an app's least-privilege role has them): dropping it had
    /// dropped them, so the app could no longer read it after the rollback.
    @Test func rightsOnMovedColumnsAreBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("DropSteps", conninfo, insert: ArchivePlanPairsTests.rows)
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            try connection.execute(unsafeSQL: "GRANT SELECT (name), UPDATE (name) ON \(schema).item TO PUBLIC")
            try connection.execute(unsafeSQL: "GRANT SELECT (id) ON \(schema).item TO PUBLIC")
            let rights = "SELECT attname::text || ' ' || coalesce(attacl::text, '-') FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attname"
            let tableRights = "SELECT coalesce(relacl::text, '-') FROM pg_class WHERE oid = $1::regclass"
            let tableBefore = try connection.rows(tableRights, ["\(schema).item"]).map { $0[0]! }
            let before = try connection.rows(rights, ["\(schema).item"]).map { $0[0]! }
            #expect(before.contains { $0.hasPrefix("name {=rw/") })
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try Self.columns(connection, schema) == ["id", "a", "b", "name"])
            let after = try connection.rows(rights, ["\(schema).item"]).map { $0[0]! }
            #expect(after == ["a -", "b -"] + before)
            // The rights stay the column's: none of them became the whole table's.
            #expect(try connection.rows(tableRights, ["\(schema).item"]).map { $0[0]! } == tableBefore)
        }
    }

    /// The columns are re-created with their constraints and indexes: a unique attribute's
    /// constraint holds afterwards.
    @Test func constraintsAndDefaultsOfMovedColumnsAreBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenantMigratedToV2("Backfill", conninfo, insert: "INSERT INTO {schema}.item (id, name, n) VALUES (1, 'a', NULL), (2, 'b', 4)")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows("SELECT name, n::text FROM \(schema).item ORDER BY id") == [["a", nil], ["b", "4"]])
            #expect(try await verifyClean(migrator, "acme"))
            #expect(try await migrator.verify(tenants: ["acme"], strict: true).map(\.isClean) == [true])
        }
    }
}
