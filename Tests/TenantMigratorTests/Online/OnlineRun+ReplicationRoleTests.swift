import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// `session_replication_role` and online runs (issue 33). Two sessions matter:
///
/// - the app's: under `replica` (a logical replication apply worker, or a role or database setting
///   some replication setups leave behind) PostgreSQL fires only `ENABLE REPLICA` and `ENABLE
///   ALWAYS` triggers, so the change capture must be `ENABLE ALWAYS`, or the app's writes during
///   the run are lost at the cutover;
/// - the migrator's: under `replica` no foreign key of the shadow is checked and none of their
///   actions run while the steps and catch-up write it, as offline, which refuses the tenant (55000,
///   `TenantRunReplicationRoleTests`). Online refuses it too, before anything is touched: the
///   setting cannot be pinned, since only a superuser (or a role granted `SET` on it) may set it,
///   even back to `origin`.
@Suite("Online runs and session_replication_role")
struct OnlineRunReplicationRoleTests {
    static let v1 = """
        entities:
          Shelf:
            attributes:
              label: { type: string }
          Item:
            attributes:
              name: { type: string }
              note: { type: string, optional: true }
            relationships:
              shelf: { destination: Shelf, optional: true, deleteRule: nullify }
        """
    /// v2 drops `note` (archived): a shadow step.
    static let v2 = v1.replacingOccurrences(of: "      note: { type: string, optional: true }\n", with: "")

    /// The app writes under `replica` in every phase: inserts, updates and deletes.
    static let writes: [OnlinePhase: [String]] = [
        .copying: underReplica(["INSERT INTO S.item (name, note) VALUES ('c1', 'x')", "UPDATE S.item SET name = 'C' WHERE name = 'i2'"]),
        .built: underReplica(["DELETE FROM S.item WHERE name = 'i3'", "UPDATE S.item SET note = 'b' WHERE name = 'i4'"]),
        .catchingUp: underReplica(["INSERT INTO S.shelf (label) VALUES ('k')", "UPDATE S.item SET name = 'K' WHERE name = 'i5'"]),
    ]

    /// `statements` in a session under `replica` (set back after them, for the twin's replay).
    static func underReplica(_ statements: [String]) -> [String] {
        ["SET session_replication_role = replica"] + statements + ["SET session_replication_role = origin"]
    }

    @Test func theAppsWritesUnderTheReplicaRoleAreCaughtUp() async throws {
        try await OnlineFamilyDirectory.withMigrator("Shelves", versions: [("v1", Self.v1), ("v2", Self.v2)], logger: "OnlineReplica") { migrator, connection, conninfo in
            try await OnlineTwins.create(migrator, connection) { connection, schema in
                try connection.fixtureScript("""
                    INSERT INTO \(schema).shelf (label) VALUES ('a'), ('b');
                    INSERT INTO \(schema).item (name, note, shelf_id) SELECT 'i' || i, 'n' || i, 1 + i % 2 FROM generate_series(1, 12) AS i
                    """)
            }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: Self.writes, batchRows: 5)
            #expect(try connection.userData(of: "tenant_online") == connection.userData(of: "tenant_twin"))
        }
    }

    @Test func aMigratorSessionUnderTheReplicaRoleIsRefusedBeforeAnythingIsTouched() async throws {
        try await withTenantForDatabaseDefaults("Shelves", versions: [("v1", Self.v1), ("v2", Self.v2)]) { directory, conninfo, connection, _, database in
            try connection.fixtureScript("""
                INSERT INTO tenant_acme.shelf (label) VALUES ('a');
                INSERT INTO tenant_acme.item (name, note, shelf_id) SELECT 'i' || i, 'n' || i, 1 FROM generate_series(1, 12) AS i
                """)
            try connection.execute(unsafeSQL: "ALTER ROLE CURRENT_USER IN DATABASE \(database) SET session_replication_role = replica")
            // A migrator whose sessions open after the setting, as the next deployment's would.
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, logger: .quiet("OnlineReplica"))
            do {
                let result = try await migrator.migrate(tenant: "acme", MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
                Issue.record("migrated online under session_replication_role = replica: \(result.outcome), \(String(describing: result.online))")
            } catch {
                let message = "\(error)"
                for part in ["acme", "session_replication_role", "replica", "55000"] {
                    #expect(message.contains(part), "the refusal does not name \(part): \(message)")
                }
            }
            #expect(try connection.tenantVersions()["acme"]?.version == "v1")
            #expect(try connection.userSchemas().allSatisfy { !$0.hasPrefix("_tm_") })
            #expect(try connection.scalar("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'tenant_acme.item'::regclass AND NOT tgisinternal", as: Int64.self) == 0)
            #expect(try connection.scalar("SELECT count(note) FROM tenant_acme.item", as: Int64.self) == 12)
        }
    }
}
