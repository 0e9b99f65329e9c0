import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Citus gives a distributed table's bigint identity a range of its own per node (from the node's
/// group id × 2^48, docs/Citus.md): whatever moves an identity must stay within it.
extension CitusTests {
    /// Recipes v2 → v3 → v2 → v3 with the family's own mapping and its Swift policies. The way down
    /// drops Ingredient and UnitOfMeasure and archives each identity's last value (what `nextval`
    /// would give, less one: on Citus, with no value drawn, one below the node's range); the way up
    /// makes the tables again and moves each new identity past that value. It must not set it below
    /// the range's minimum (22003), and new rows of the app then take ids past every id in use.
    @Test func citusUpDownUpWithThePoliciesKeepsEachIdentityWithinItsNodesRange() async throws {
        try await CitusFixture.with { fixture in
            let migrator = try fixture.migrator()
            let tenant = try await fixture.recipesTenants(at: "v2", ("range", 20))[0]
            let schema = "tenant_" + tenant
            _ = try await migrator.migrate(tenant: tenant, .migrate(to: "v3"))
            _ = try await migrator.migrate(tenant: tenant, .rollback(to: "v2"))
            let again = try await migrator.migrate(tenant: tenant, .migrate(to: "v3"))
            #expect(again.outcome == .migrated)
            for table in ["ingredient", "unit_of_measure"] {
                let next = try fixture.connection.scalar("SELECT nextval(pg_get_serial_sequence('\(schema).\(table)', 'id'))", as: Int64.self)
                #expect(try next > fixture.connection.scalar("SELECT coalesce(max(id), 0) FROM \(schema).\(table)", as: Int64.self), "\(table)")
            }
            #expect(try fixture.preparedTransactions() == 0)
        }
    }
}
