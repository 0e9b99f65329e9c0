import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A fleet run stopped (Ctrl-C, SIGTERM) while an online tenant is in flight: the first stop lets
/// it finish, as it lets an offline tenant in flight commit; the second cancels it, and it is left
/// at its old version with nothing of the run visible. Each stop is made from the run's own
/// checkpoints, never by timing.
@Suite("Online runs and fleet stops")
struct OnlineRunStopTests {
    /// Migrates `acme` online to v2 in a fleet run stopped `stops` times at the first checkpoint
    /// of `phase`.
    func fleetRun(_ conninfo: String, stoppedAt phase: OnlinePhase, stops: Int) async throws -> FleetReport {
        var migrator = try makeRecipesMigrator(conninfo)
        migrator.settings.online.batchRows = 10
        let control = FleetControl()
        let stopped = Locked(false)
        migrator.settings.online.checkpoint = { checkpoint in
            guard checkpoint.phase == phase, stopped.withLock({ done in defer { done = true }; return !done }) else { return }
            for _ in 0..<stops { control.stop() }
        }
        return try await migrator.moveAll(.migrate(to: "v2", online: .on), jobs: 1, control: control)
    }

    @Test(arguments: [OnlinePhase.copying, .catchingUp])
    func aFirstStopLetsAnOnlineTenantInFlightFinish(phase: OnlinePhase) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await AppTenant.with(conninfo, at: "v1") { tenant in
                let report = try await fleetRun(conninfo, stoppedAt: phase, stops: 1)
                #expect(report.interrupted)
                let entry = try #require(report.entries.first { $0.tenant == "acme" })
                #expect(entry.outcome == .migrated, "\(entry)")
                #expect(try tenant.recorded()?.version == "v2")
                #expect(try tenant.recorded()?.state == "ready")
                let history = try tenant.admin.column(
                    "SELECT outcome::text FROM tenant_migrator.migration_history WHERE tenant = 'acme' AND to_version = 'v2'", as: String.self
                )
                #expect(history == ["succeeded"], "history: \(history)")
                try tenant.expectNoLeftovers()
            }
        }
    }

    @Test(arguments: [OnlinePhase.copying, .catchingUp])
    func aSecondStopCancelsItAndLeavesItAsItWas(phase: OnlinePhase) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await AppTenant.with(conninfo, at: "v1") { tenant in
                let before = try tenant.contents(at: "v1")
                let report = try await fleetRun(conninfo, stoppedAt: phase, stops: 2)
                #expect(report.interrupted)
                let entry = try #require(report.entries.first { $0.tenant == "acme" })
                // As a plain fleet reports a tenant it stopped: not started, no error, nothing recorded.
                #expect(entry.outcome == .notStarted && entry.error == nil && entry.sqlState == nil, "\(entry)")
                let history = try tenant.admin.column(
                    "SELECT outcome::text FROM tenant_migrator.migration_history WHERE tenant = 'acme' AND to_version = 'v2'", as: String.self
                )
                #expect(history.isEmpty, "history: \(history)")
                try tenant.expectUsable(at: "v1", rows: before)
                try tenant.expectNoLeftovers()
            }
        }
    }
}
