import Foundation
import LibPQ
import Logging
import PostgresTestSupport
import TenantMigrator
import TenantMigratorService
import TenantMigratorTestSupport
import Testing

/// The facade over the Recipes family with its Swift policies, as a server app builds it, logging
/// warnings and errors only. `lockTimeout` and `maxAttempts` stay the library's defaults (5 s, 5):
/// the service must bound its waits by itself.
func makeMigrator(_ conninfo: String) throws -> TenantMigrator {
    var logger = Logger(label: "TenantMigratorServiceTests")
    logger.logLevel = .warning
    return try makeRecipesMigrator(conninfo, logger: logger)
}

/// Like ``makeMigrator(_:)``, with `tenants` created at v1 (two at a time).
func makeMigrator(_ conninfo: String, tenantsAtV1 tenants: [String]) async throws -> TenantMigrator {
    let migrator = try makeMigrator(conninfo)
    let created = try await migrator.createTenants(tenants, version: "v1", jobs: 2)
    guard created.succeeded else { throw TestFailure("creating \(tenants): \(created.failed) failed") }
    return migrator
}

/// A service over `migrator` that logs warnings and errors, with quick retries. The default deadline is far beyond what a boot pass of the tests'
/// few tenants takes (a few seconds idle): a pass that ends early never waits for it, and one
/// under a busy machine (20 s was not enough for two tenants once while the whole suite, with
/// the Citus suite and two builds beside it, kept the cores busy) still ends by its work.
func makeService(
    _ migrator: TenantMigrator, deadline: Duration = .seconds(180), lockTimeout: Duration? = nil,
    retry: RetryPolicy = RetryPolicy(initialDelay: .milliseconds(200), maximumDelay: .seconds(1))
) -> TenantMigratorService {
    var logger = migrator.logger
    logger.logLevel = .warning
    return TenantMigratorService(migrator: migrator, deadline: deadline, concurrency: 2, retry: retry, lockTimeout: lockTimeout, logger: logger)
}

/// A migrator over `tenants` and `held`, all created at v1, and a session that holds ACCESS
/// EXCLUSIVE on `held`'s recipe table in an open transaction (as a long report or a stuck app
/// session would) until `holder` rolls back.
func fleetWithHeldTenant(_ conninfo: String, _ tenants: [String], held: String = "held") async throws -> (migrator: TenantMigrator, holder: Connection) {
    let migrator = try await makeMigrator(conninfo, tenantsAtV1: tenants + [held])
    let holder = try Connection(conninfo)
    try holder.execute("BEGIN")
    try holder.execute(unsafeSQL: "LOCK TABLE \(holder.quoteIdentifier("tenant_" + held)).recipe IN ACCESS EXCLUSIVE MODE")
    return (migrator, holder)
}

/// Waits for `service`'s boot pass; its report and how long the wait took.
func timedBoot(_ service: TenantMigratorService) async -> (report: BootReport, duration: Duration) {
    let started = ContinuousClock.now
    let report = await service.bootCompleted()
    return (report, ContinuousClock.now - started)
}

/// The version the catalog records for `tenant`.
func version(of tenant: String, _ migrator: TenantMigrator) async throws -> String? {
    try await migrator.tenant(named: tenant)?.version
}

/// Starts `service.run()` outside a service group (a task cancellation ends it); `ended` tells,
/// from anywhere, whether `run()` has returned.
func start(_ service: TenantMigratorService) -> (task: Task<Void, any Error>, ended: Locked<Bool>) {
    let ended = Locked(false)
    let task = Task {
        defer { ended.withLock { $0 = true } }
        try await service.run()
    }
    return (task, ended)
}

/// Ends a run ``start(_:)`` began (a task cancellation, as a service group's shutdown) and waits
/// for `run()` to return, rethrowing what it threw.
func stop(_ run: Task<Void, any Error>) async throws {
    run.cancel()
    try await run.value
}
