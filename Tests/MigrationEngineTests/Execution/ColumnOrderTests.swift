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

    /// The unique constraint, index and check of the columns it re-creates come back under the
    /// names the tenant had for them (an adopted tenant's own, here given by hand) and with their
    /// comments, which the model does not carry; a commented index of the app's own on a moved
    /// column (which the model does not make again) does not keep the table out of order.
    @Test func ownNamesAndCommentsOfRecreatedObjectsAreBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("OwnNamesOrder", conninfo, insert: "INSERT INTO {schema}.item (a, code, name, qty) VALUES ('x', 'c1', 'n1', 1), (NULL, 'c2', 'n2', 2)")
            let fresh = try Self.columns(connection, schema)
            #expect(fresh == ["id", "a", "code", "name", "qty"])
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            for statement in [
                "ALTER INDEX \(schema).item_name_idx RENAME TO index_items_on_name", "ALTER TABLE \(schema).item RENAME CONSTRAINT item_code_key TO uk_item_code",
                "ALTER TABLE \(schema).item RENAME CONSTRAINT item_qty_check TO qty_not_negative",
                "COMMENT ON INDEX \(schema).index_items_on_name IS 'Search by name'", "COMMENT ON CONSTRAINT uk_item_code ON \(schema).item IS 'One item per code'",
                "COMMENT ON CONSTRAINT qty_not_negative ON \(schema).item IS 'No backorders'", "COMMENT ON CONSTRAINT item_pkey ON \(schema).item IS 'The key'",
                "CREATE INDEX app_own_qty ON \(schema).item (qty)", "COMMENT ON INDEX \(schema).app_own_qty IS 'The app''s own'",
            ] { try connection.execute(unsafeSQL: statement) }
            let objects = """
                SELECT i.relname::text || coalesce(' ' || obj_description(i.oid, 'pg_class'), '') FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                WHERE x.indrelid = $1::regclass AND NOT EXISTS (SELECT FROM pg_constraint k WHERE k.conindid = x.indexrelid)
                UNION ALL SELECT conname::text || coalesce(' ' || obj_description(oid, 'pg_constraint'), '') FROM pg_constraint WHERE conrelid = $1::regclass AND contype <> 'n'
                ORDER BY 1
                """
            #expect(try connection.rows(objects, ["\(schema).item"]).map { $0[0]! } == [
                "app_own_qty The app's own", "index_items_on_name Search by name", "item_pkey The key", "qty_not_negative No backorders", "uk_item_code One item per code",
            ])
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try Self.columns(connection, schema) == fresh)
            // The model does not make the app's own index again: it went with its column.
            let after = try connection.rows(objects, ["\(schema).item"]).map { $0[0]! }
            #expect(after == ["index_items_on_name Search by name", "item_pkey The key", "qty_not_negative No backorders", "uk_item_code One item per code"],
                    "\(after)")
            #expect(try connection.rows("SELECT a, code, name, qty::text FROM \(schema).item ORDER BY id") == [["x", "c1", "n1", "1"], [nil, "c2", "n2", "2"]])
            #expect(try await migrator.verify(tenants: ["acme"], strict: true).map(\.isClean) == [true])
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
