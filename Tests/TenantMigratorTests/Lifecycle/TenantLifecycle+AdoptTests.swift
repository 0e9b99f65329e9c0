import EntityModel
import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// `tenant adopt x --schema <another tenant's schema>` names the other tenant (issue 11), instead
/// of failing with a raw unique violation.
@Suite("Adopting another tenant's schema")
struct TenantLifecycleAdoptTests {
    @Test func adoptingAnotherTenantsSchemaNamesThatTenant() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            let catalog = lifecycle.catalog
            try lifecycle.create(try tenant("acme"), on: connection)

            do {
                try lifecycle.adopt(try tenant("thief"), schema: "tenant_acme", on: connection)
                Issue.record("adopting tenant_acme for another tenant must fail")
            } catch let TenantMigratorError.schemaBelongsToTenant(schema, owner) {
                #expect(schema == "tenant_acme")
                #expect(owner.rawValue == "acme")
            }
            let message = "\(TenantMigratorError.schemaBelongsToTenant("tenant_acme", tenant: try tenant("acme")))"
            #expect(message.contains("schema tenant_acme already belongs to tenant acme"))
            #expect(try catalog.tenant(try tenant("thief"), on: connection) == nil)
        }
    }

    /// Two adopters of one schema: the second one's insert waits for the first one's commit, then
    /// fails with 23505, which must become the same clear error.
    @Test func aRacingAdoptionOfTheSameSchemaNamesTheWinner() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            let (catalog, family) = (lifecycle.catalog, lifecycle.family)
            let v1 = try #require(family.version(named: "v1"))
            try connection.createSchema("legacy", at: v1)

            // The winner has inserted its row but not committed.
            let winner = try Connection(conninfo)
            try winner.fixtureScript("BEGIN")
            try winner.execute(
                "INSERT INTO tenant_migrator.tenants (name, schema_name, family, version, version_hash) VALUES ('winner', 'legacy', $1, 'v1', $2)",
                [family.name, v1.versionHash]
            )

            let loser = try await AsyncConnection.connect(conninfo)
            let pid = try await loser.withConnection { $0.backendPID }
            async let adoption: Void = loser.withConnection { try lifecycle.adopt(try tenant("loser"), schema: "legacy", on: $0) }
            // Commit once the loser waits for the winner's row lock, past its own check.
            var waiting = false
            for _ in 0..<600 where !waiting {
                waiting = try connection.execute(
                    "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO%'", [pid]
                ).rowCount > 0
                if !waiting { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(waiting, "the loser never waited on the winner's insert")
            try winner.fixtureScript("COMMIT")

            do {
                try await adoption
                Issue.record("the second adoption of legacy must fail")
            } catch let TenantMigratorError.schemaBelongsToTenant(schema, owner) {
                #expect(schema == "legacy")
                #expect(owner.rawValue == "winner")
            }
            #expect(try catalog.tenant(try tenant("loser"), on: connection) == nil)
        }
    }
}
