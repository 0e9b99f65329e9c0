import LibPQ
import PostgresTestSupport
import TenantMigrator
import Testing

/// Keys `GENERATED ALWAYS AS IDENTITY` (as adopted schemas have them, `identity: always`): the way
/// down puts archived rows back with the ids they had, which such a column refuses without
/// `OVERRIDING SYSTEM VALUE` (428C9). Found with the CLI: an entity dropped on the way up was
/// archived, and the rollback failed, so its rows could not come back.
@Suite("The way back into tables keyed by an identity generated always")
struct IdentityAlwaysWayBackTests {
    /// Shelf (integer identity, an optional note) and Tag (bigint identity, a link to a shelf).
    static let v1 = OnlineRunIdentityAlwaysTests.v1
    /// Tag goes, and so does Shelf's note: both are archived on the way up.
    static let v2 = v1.components(separatedBy: "  Tag:\n")[0].replacingOccurrences(of: "      note: { type: string, optional: true }\n", with: "")

    @Test func rowsOfADroppedEntityComeBackWithTheirIDs() async throws {
        try await OnlineFamilyDirectory.withMigrator("Keys", versions: [("v1", Self.v1), ("v2", Self.v2)], logger: "IdentityAlwaysWayBack") { migrator, connection, _ in
            _ = try await migrator.createTenant("t", version: "v1")
            // Ids with gaps (deleted rows), NULLs and links.
            try connection.fixtureScript("""
                INSERT INTO tenant_t.shelf (label, note) SELECT 's' || i, CASE WHEN i % 3 = 0 THEN NULL ELSE 'n' || i END FROM generate_series(1, 30) AS i;
                INSERT INTO tenant_t.tag (word, shelf_id) SELECT 't' || i, CASE WHEN i % 4 = 0 THEN NULL ELSE 1 + i % 30 END FROM generate_series(1, 30) AS i;
                DELETE FROM tenant_t.tag WHERE id IN (5, 6);
                DELETE FROM tenant_t.shelf WHERE id = 30
                """)
            let before = try Self.rows(connection)

            #expect(try await migrator.migrate(tenant: "t", .migrate(to: "v2")).outcome == .migrated)
            let back = try await migrator.migrate(tenant: "t", .rollback(to: "v1"))
            #expect(back.outcome == .migrated)
            #expect(try Self.rows(connection) == before)
            // New rows draw past every id in use.
            #expect(try connection.scalar("INSERT INTO tenant_t.tag (word) VALUES ('new') RETURNING id::bigint", as: Int64.self) > 30)
            #expect(try connection.scalar("INSERT INTO tenant_t.shelf (label) VALUES ('new') RETURNING id::bigint", as: Int64.self) > 30)
        }
    }

    /// Every row of both tables, as text, in id order.
    static func rows(_ connection: Connection) throws -> [String] {
        try ["shelf", "tag"].flatMap { table in
            try connection.execute(unsafeSQL: "SELECT t::text FROM tenant_t.\(table) AS t ORDER BY id").map { try $0.decode(String.self, at: 0) }
        }
    }
}
