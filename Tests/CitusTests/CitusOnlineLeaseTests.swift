import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// The capture's lease on Citus (``OnlineSettings/citusLeaseDuration``) while a run spends longer
/// than the lease between two of its own renewals, as a large tenant's build does.
extension CitusTests {
    /// The run pauses at its copy's checkpoint for longer than the lease lasts: a session of the
    /// run's own keeps renewing it, so the run goes on, still capturing the app's writes, and
    /// migrates. (Before, a build longer than the lease failed the run: "its change capture's
    /// lease lapsed during the copy".)
    @Test func aRunLongerThanTheLeaseBetweenItsRenewalsKeepsItFresh() async throws {
        try await CitusFixture.with { fixture in
            var migrator = try fixture.onlineMigrator(declarative: false)
            let tenant = fixture.names(1, "lease")[0], schema = "tenant_" + tenant
            _ = try await migrator.createTenants([tenant], version: "v2", jobs: 1)
            try fixture.connection.loadRecipes(tenants: [tenant], version: "v2", recipes: 10)
            let app = AppWriter(conninfo: fixture.conninfo, schemas: [schema], writes: AppWriter.atV2)
            let lease: Duration = .seconds(12)
            let paused = Locked(false)
            migrator.settings.online.citusLeaseDuration = lease
            migrator.settings.online.checkpoint = { checkpoint in
                switch checkpoint.phase {
                case .copying:
                    // Once, on a thread of the run's own: what a long statement of the build would be.
                    if paused.withLock({ done in defer { done = true }; return !done }) { Thread.sleep(forTimeInterval: 20) }
                case .built: try app.write()
                default: break
                }
            }
            let result = try await migrator.migrate(tenant: tenant, .migrate(to: "v3", online: .on))
            #expect(result.outcome == .migrated, "\(result)")
            #expect(result.online?.mode == "shadow", "\(String(describing: result.online))")
            #expect(app.count == 1)
            #expect(try fixture.connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE name LIKE '%(app)'", as: Int.self) > 0)
            #expect(result.toVersion == "v3")
        }
    }
}
