import EntityModel
import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// An online run on Citus whose runner's backend is terminated at a phase: the tenant stays at its
/// old version with all its rows, the app goes on writing, `online cleanup` removes what the run
/// left in the tenant's schema, and a new run ends as offline; or, without the cleanup, an offline
/// migration removes them in its own transaction.
extension CitusTests {
    @Test(arguments: [(OnlinePhase.prepared, true), (.copying, true), (.built, true), (.catchingUp, false), (.cutoverLocked, true), (.cutoverSwapped, true), (.copying, false)])
    func onlineOnCitusATerminatedRunLeavesTheOldVersionAndCleanupAndARerunFinish(phase: OnlinePhase, cleanup: Bool) async throws {
        try await CitusFixture.with { fixture in
            var migrator = try fixture.migrator()
            let tenant = fixture.names(1, "crash")[0], twin = fixture.names(1, "twin")[0]
            let schema = "tenant_" + tenant, twinSchema = "tenant_" + twin, connection = fixture.connection
            _ = try await migrator.createTenants([tenant, twin], version: "v2", jobs: 1)
            try fixture.placeOnTheSameWorker(twinSchema, as: schema)
            try connection.loadRecipes(tenants: [tenant, twin], version: "v2", recipes: 30)
            let app = AppWriter(conninfo: fixture.conninfo, schemas: [schema, twinSchema], writes: AppWriter.atV2)
            let conninfo = fixture.conninfo
            let terminated = Locked(false)
            migrator.settings.online.batchRows = 15
            migrator.settings.online.checkpoint = { checkpoint in
                if checkpoint.phase == .copying, !terminated.value { try app.write() }
                guard checkpoint.phase == phase, terminated.withLock({ done in defer { done = true }; return !done }) else { return }
                let killer = try Connection(conninfo, logger: quietLogger)
                _ = try killer.execute("SELECT pg_terminate_backend($1)", [checkpoint.backendPID])
            }
            await #expect(throws: (any Error).self) {
                _ = try await migrator.migrate(tenant: tenant, .migrate(to: "v3", online: .on))
            }
            #expect(terminated.value)
            let version: String = try connection.scalar("SELECT version FROM \(fixture.catalog.schema).tenants WHERE name = $1", [tenant])
            #expect(version == "v2")
            for table in ["recipe", "recipe_ingredient"] {
                #expect(try connection.rows(of: schema, table) == connection.rows(of: twinSchema, table), "\(table) after the terminated run")
            }
            // The app goes on writing the old version, leftovers or not.
            try app.write()
            try app.write()

            #expect(try !connection.relations(of: schema, like: "\\_tm\\_shadow\\_%").isEmpty)
            var again = try fixture.migrator()
            again.settings.online.batchRows = 15
            if cleanup {
                let cleaned = try await migrator.cleanUpOnlineMigrations(tenant: tenant)
                #expect(cleaned.map(\.outcome) == [.removed], "\(cleaned)")
            } else {
                #expect(try await again.migrate(tenant: tenant, .migrate(to: "v3")).outcome == .migrated)
            }
            #expect(try connection.relations(of: schema, like: "\\_tm\\_%").filter { !$0.hasPrefix("_tm_archive") }.isEmpty)
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_trigger WHERE tgrelid::regclass::text LIKE $1 AND NOT tgisinternal",
                                          [schema + ".%"], as: Int.self) == 0)
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_proc WHERE pronamespace = $1::regnamespace", [schema], as: Int.self) == 0)

            if cleanup {
                #expect(try await again.migrate(tenant: tenant, .migrate(to: "v3", online: .on)).outcome == .migrated)
            }
            _ = try await again.migrate(tenant: twin, .migrate(to: "v3"))
            for table in try #require(try recipesFamily().version(named: "v3")).relationalSchema().tables.map(\.name) {
                #expect(try connection.rows(of: schema, table) == connection.rows(of: twinSchema, table), "\(table)")
            }
            #expect(try connection.archiveEntries(of: schema) == connection.archiveEntries(of: twinSchema))
            #expect(try fixture.colocationGroups(of: schema).count == 1)
        }
    }
}

extension CitusTests {
    /// The lease lapses during the copy (its expiry set in the past, as a runner stalled past it
    /// would find it): the capture may have missed writes, so the next renewal fails the run, naming
    /// why; the tenant stays at v2, what the run made is removed, and a rerun migrates it.
    @Test func onlineOnCitusALapsedLeaseFailsTheRunAndARerunFinishes() async throws {
        try await CitusFixture.with { fixture in
            var migrator = try fixture.migrator()
            let tenant = try await fixture.recipesTenants(at: "v2", ("lapse", 30))[0]
            let schema = "tenant_" + tenant, connection = fixture.connection
            let conninfo = fixture.conninfo
            let lapsed = Locked(false)
            migrator.settings.online.batchRows = 15
            migrator.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .copying, lapsed.withLock({ done in defer { done = true }; return !done }) else { return }
                let dba = try Connection(conninfo, logger: quietLogger)
                try dba.execute("UPDATE \(table: "_tm_shadow__tm_online_lease") SET expires_at = now() - interval '1 second'", schema: schema)
            }
            let error = await #expect(throws: (any Error).self) {
                _ = try await migrator.migrate(tenant: tenant, .migrate(to: "v3", online: .on))
            }
            #expect("\(error.map { "\($0)" } ?? "")".contains("lease lapsed during the copy"), "\(String(describing: error))")
            #expect(try connection.scalar("SELECT version FROM \(fixture.catalog.schema).tenants WHERE name = $1", [tenant], as: String.self) == "v2")
            #expect(try connection.relations(of: schema, like: "\\_tm\\_%").filter { !$0.hasPrefix("_tm_archive") }.isEmpty)
            migrator.settings.online.checkpoint = nil
            #expect(try await migrator.migrate(tenant: tenant, .migrate(to: "v3", online: .on)).outcome == .migrated)
        }
    }
}
