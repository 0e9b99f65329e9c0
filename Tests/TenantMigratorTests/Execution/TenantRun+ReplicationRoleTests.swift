import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// `session_replication_role = replica`, set for the migrator's role or the database (as some
/// replication setups leave it), turns off what keeps a tenant's links whole: foreign keys are not
/// checked, their `ON DELETE` actions do not run, and the app's `ENABLE REPLICA` triggers fire. A
/// migration, or `archive restore --superseded`, would then write rows no constraint vouches for.
/// Both refuse the tenant (55000, naming the setting) before writing anything.
@Suite("TenantRun: the replication role")
struct TenantRunReplicationRoleTests {
    static let family = [
        ("v1", """
            entities:
              Item:
                attributes:
                  name: { type: string }
                  note: { type: string, optional: true }
            """),
        ("v2", """
            entities:
              Item:
                attributes:
                  name: { type: string }
            """),
    ]

    @Test func aSessionWithTheReplicaRoleIsRefusedBeforeAnythingIsWritten() async throws {
        try await withTenantForDatabaseDefaults("Replica", versions: Self.family) { directory, conninfo, connection, schema, database in
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).item (name, note) VALUES ('Tea', 'green'), ('Milk', NULL)")
            try connection.execute(unsafeSQL: "ALTER ROLE CURRENT_USER IN DATABASE \(database) SET session_replication_role = replica")

            let replica = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, policies: PolicyRegistry())
            for attempt in ["migrate", "restore"] {
                do {
                    if attempt == "migrate" {
                        _ = try await replica.migrate(tenant: "acme", to: "v2", allowDestructive: true)
                    } else {
                        _ = try await replica.restoreSuperseded(tenant: "acme")
                    }
                    Issue.record("\(attempt) ran with session_replication_role = replica")
                } catch {
                    let message = "\(error)"
                    for part in ["acme", "session_replication_role", "replica", "55000"] {
                        #expect(message.contains(part), "\(attempt): the refusal does not name \(part): \(message)")
                    }
                    #expect(SQLState.of(error) == "55000", "\(attempt): \(type(of: error)) reports no SQLSTATE")
                }
            }
            // A fleet run reports the tenant failed with the refusal's SQLSTATE, as for a server error.
            let report = try await replica.migrateAll(to: "v2", allowDestructive: true)
            #expect(report.entries.map(\.outcome) == [.failed])
            #expect(report.entries.first?.sqlState == "55000", "\(report.entries)")
            #expect(try connection.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 'acme'", as: String.self) == "v1")
            #expect(try connection.rows("SELECT name, note FROM \(schema).item ORDER BY id") == [["Tea", "green"], ["Milk", nil]])
        }
    }
}
