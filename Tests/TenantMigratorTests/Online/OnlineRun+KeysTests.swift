import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: keys as they are, online. A serial key's sequence is the table's own, as an
/// identity's is: after the cutover it draws past every id in use, in every table the shadow built.
@Suite("Online runs of keyed entities", .serialized)
struct OnlineRunKeysTests {
    @Test func aSerialKeysSequenceDrawsPastEveryIDAfterTheCutover() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let directory = PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/SerialKeys")
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, logger: .quiet("OnlineKeys"))
            let connection = try Connection(conninfo)
            _ = try await migrator.createTenant("online", version: "v1")
            try connection.fixtureScript("""
                INSERT INTO tenant_online.shelf (label) VALUES ('a'), ('b'), ('c');
                INSERT INTO tenant_online.book (title, shelf_id, pages) VALUES ('x', 1, 10), ('y', 2, NULL)
                """)
            let result = try await migrator.migrate(tenant: "online", MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
            #expect(result.outcome == .migrated)
            #expect(result.online != nil && result.online?.mode != "catalog-only", "\(String(describing: result.online))")
            // The next shelf and book take the ids after the last ones in use, not ids taken already.
            #expect(try connection.scalar("INSERT INTO tenant_online.book (title) VALUES ('z') RETURNING id", as: Int64.self) == 3)
            #expect(try connection.scalar("INSERT INTO tenant_online.shelf (label) VALUES ('d') RETURNING id::bigint", as: Int64.self) == 4)
        }
    }
}
