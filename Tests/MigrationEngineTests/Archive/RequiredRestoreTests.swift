import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30, class 8: a rollback that adds back a required attribute with no default is not
/// refused up front: the archive holds the value of every row the way up had. Only rows without
/// an archived value (made since) refuse it, by name.
@Suite("Archive: a required attribute the way down gets back from the archive")
struct RequiredRestoreTests {
    static let rows = "INSERT INTO {schema}.item (id, name, code) VALUES (1, 'a', 'A-1'), (2, 'b', ''), (3, 'c', ' x ')"

    @Test func everyRowGetsItsArchivedValueBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenantMigratedToV2("RequiredDrop", conninfo, insert: Self.rows)
            #expect(try await migrator.rollback(tenant: "acme", to: "v1").outcome == .migrated)
            #expect(try connection.rows("SELECT id::text, name, code FROM \(schema).item ORDER BY id")
                    == [["1", "a", "A-1"], ["2", "b", ""], ["3", "c", " x "]])
            #expect(try connection.scalar("SELECT is_nullable FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'item' "
                + "AND column_name = 'code'", [schema], as: String.self) == "NO")
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// A tenant with no rows needs no value either.
    @Test func anEmptyTableNeedsNoValue() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, _, _) = try await fixtureTenant("RequiredDrop", conninfo, version: "v2", insert: "SELECT 1")
            #expect(try await migrator.rollback(tenant: "acme", to: "v1").outcome == .migrated)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// Rows the app made after the way up have no archived value: the rollback fails, naming the
    /// tenant, the entity, the attribute and the rows, and leaves the tenant as it was.
    @Test func rowsMadeSinceAreNamedAndNothingChanges() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenantMigratedToV2("RequiredDrop", conninfo, insert: Self.rows)
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).item (id, name) VALUES (7, 'new'), (9, 'newer')")
            let before = try connection.tableChecksums(schema: schema, rowsOrderedBy: .text)
            do {
                _ = try await migrator.rollback(tenant: "acme", to: "v1")
                Issue.record("rows without a value for a required attribute must refuse the rollback")
            } catch {
                let message = "\(error)"
                #expect(message.contains("acme") && message.contains("Item.code") && message.contains("ids 7, 9"), "\(message)")
            }
            #expect(try connection.tableChecksums(schema: schema, rowsOrderedBy: .text) == before)
            #expect(try await migrator.tenants().map(\.version) == ["v2"])
        }
    }
}
