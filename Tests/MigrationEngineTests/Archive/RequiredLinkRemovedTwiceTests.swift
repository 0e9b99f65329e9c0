import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Found by the round-trip property at seed 3 (family 91): a way down that re-creates, in one
/// call, a table two pairs removed (the rows by the later pair, a required to-one by the earlier)
/// failed with 23502: fused, the table was created with its required column at once, and its
/// archived rows, which lack that column, could not go back before the links did. Step by step it
/// always worked. Nothing was lost (the rollback was undone), but the tenant could not roll back.
@Suite("Archive: a table whose rows and required link two pairs removed")
struct RequiredLinkRemovedTwiceTests {
    static let rows = """
        WITH shelves AS (INSERT INTO {schema}.shelf (id, label) VALUES (1, 'Top'), (2, NULL)),
        books AS (INSERT INTO {schema}.book (id, title, shelf_id) VALUES (1, 'Dune', 1), (2, NULL, 2), (3, 'Emma', 1))
        INSERT INTO {schema}.note (id, text) VALUES (1, 'n')
        """

    @Test func theWayDownInOneCallGivesBackTheRowsAndTheirLinks() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("RequiredLinkRemovedTwice", conninfo, insert: Self.rows)
            let before = try connection.rows("SELECT b.id::text, b.title, s.label FROM \(schema).book b JOIN \(schema).shelf s ON s.id = b.shelf_id ORDER BY b.id")
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows("SELECT b.id::text, b.title, s.label FROM \(schema).book b JOIN \(schema).shelf s ON s.id = b.shelf_id ORDER BY b.id") == before)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
