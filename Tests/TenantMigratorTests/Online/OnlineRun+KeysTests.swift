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

    /// A model with sequences of its own migrates offline only: the shadow would make them anew from
    /// their start. The online run is refused before anything is touched; offline, the sequence
    /// keeps its current value.
    @Test func aModelWithSequencesOfItsOwnIsRefusedOnline() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sequences-\(UUID().uuidString)/Parts")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let v1 = """
            entities:
              Part:
                key: { type: bigint, defaultExpression: "nextval('part_seq'::regclass)" }
                attributes:
                  name: { type: varchar(40), allowsNarrowing: true }
            sequences:
              part_seq: { increment: 50 }
            """
        try "family: Parts\nversions: [v1, v2]\n".write(to: directory.appendingPathComponent("family.yaml"), atomically: true, encoding: .utf8)
        try v1.write(to: directory.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        try v1.replacingOccurrences(of: "varchar(40), allowsNarrowing: true", with: "varchar(80)")
            .write(to: directory.appendingPathComponent("v2.yaml"), atomically: true, encoding: .utf8)
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, logger: .quiet("OnlineKeys"))
            let connection = try Connection(conninfo)
            _ = try await migrator.createTenant("parts", version: "v1")
            try connection.fixtureScript("INSERT INTO tenant_parts.part (name) VALUES ('bolt'), ('nut')")
            await #expect {
                _ = try await migrator.migrate(tenant: "parts", MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
            } throws: { error in
                "\(error)".contains("the model has sequences of its own (part_seq)")
            }
            #expect(try connection.tenantVersions()["parts"]?.version == "v1")
            _ = try await migrator.migrate(tenant: "parts", MigrationRequest(.move, to: "v2", allowDestructive: true))
            #expect(try connection.scalar("INSERT INTO tenant_parts.part (name) VALUES ('washer') RETURNING id", as: Int64.self) == 101)
        }
    }
}
