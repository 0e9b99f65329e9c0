import Foundation
import LibPQ
import Logging
import PostgresTestSupport
import ServiceLifecycle
import TenantMigrator
import TenantMigratorService
import Testing

/// Inside a `ServiceGroup`, a graceful shutdown ends the service promptly: no new tenant starts,
/// lock waits end, tenants in flight commit or roll back.
@Suite("TenantMigratorService graceful shutdown")
struct TenantMigratorServiceShutdownTests {
    @Test func gracefulShutdownDuringALockWaitEndsTheService() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, holder) = try await fleetWithHeldTenant(conninfo, ["acme"])
            defer { _ = try? holder.execute("ROLLBACK") }

            // A deadline and a lock timeout long enough that only the shutdown can end the wait;
            // what ended it is read from the service's own log and report, not from a clock: a
            // lock timeout logs the tenant as held by a lock (55P03), a deadline sets
            // `deadlineReached`, and only the shutdown leaves it "not migrated before the pass stopped".
            let (logger, log) = RecordingLogHandler.logger(level: .warning)
            let service = TenantMigratorService(migrator: migrator, deadline: .seconds(120), concurrency: 2,
                                                retry: RetryPolicy(initialDelay: .milliseconds(200), maximumDelay: .seconds(1)),
                                                lockTimeout: .seconds(60), logger: logger)
            let group = ServiceGroup(services: [service], logger: service.logger)
            let running = Task { try await group.run() }

            let observer = try Connection(conninfo)
            // (acme migrates first: beside a busy machine that took over 30 s.)
            #expect(try await waitUntil(timeout: .seconds(100)) { try !observer.lockWaiters().isEmpty }, "the service never waited for the held tenant's lock")
            await group.triggerGracefulShutdown()
            try await running.value

            let report = try #require(service.bootReport)
            #expect(report.shutDown)
            #expect(!report.deadlineReached)
            let warnings = log.messages(at: .warning)
            #expect(warnings.contains { $0.hasPrefix("tenant held was not migrated before the pass stopped") }, "\(warnings)")
            #expect(!warnings.contains { $0.contains("55P03") }, "the lock wait ended by its timeout: \(warnings)")
            #expect(report.held == ["held"])
            #expect(try await version(of: "held", migrator) == "v1")
            #expect(try observer.lockWaiters().isEmpty)
            // acme was either done before the shutdown, or never started: never half-migrated.
            let acme = try await version(of: "acme", migrator)
            #expect(acme == (report.ready.contains("acme") ? "v3" : "v1"))
        }
    }

    @Test func gracefulShutdownWhileIdleEndsTheService() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try await makeMigrator(conninfo, tenantsAtV1: ["acme", "globex"])
            let service = makeService(migrator)
            let group = ServiceGroup(services: [service], logger: service.logger)
            let running = Task { try await group.run() }
            let report = await service.bootCompleted()
            #expect(report.succeeded)
            #expect(service.isReady(tenant: "acme") && service.isReady(tenant: "globex"))

            // Nothing to retry: the service sleeps, and the shutdown wakes it.
            let shutdownAt = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await running.value
            // (Idle, it sleeps until something is due: any finite bound shows the shutdown woke it.
            // 20 s took 22 s once in a fresh-clone CI run whose other suites kept the pool busy.)
            #expect(ContinuousClock.now - shutdownAt < .seconds(180))
        }
    }
}
