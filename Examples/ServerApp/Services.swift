import Logging
import ServiceLifecycle
import TenantMigrator
import TenantMigratorService

/// The boot migration as a service beside the app's own: the app starts at once, each tenant is
/// served once it is ready.
func runServices(migrator: TenantMigrator, logger: Logger) async throws {
    let tenants = TenantMigratorService(
        migrator: migrator,
        deadline: .seconds(10),   // the boot pass stops waiting for locks after this
        concurrency: 8,           // tenants migrated at once
        retry: RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(60), deterministicInterval: .seconds(600)),
        logger: logger
    )
    let app = RequestLoop(tenants: tenants, logger: logger)
    let group = ServiceGroup(services: [tenants, app], gracefulShutdownSignals: [.sigterm], logger: logger)
    try await group.run()
}

/// Stands in for the app's HTTP server: serves tenant `acme` once it is ready, until shutdown.
struct RequestLoop: Service {
    let tenants: TenantMigratorService
    let logger: Logger

    func run() async throws {
        let report = await tenants.bootCompleted()
        logger.info("boot: \(report.ready.count) ready, \(report.held.count) held, \(report.failed.count) failed")
        let answer = try await handle(tenant: "acme", tenants: tenants)
        logger.info("acme: \(answer), \(describe(tenant: "acme", tenants: tenants))")
        try await gracefulShutdown()
    }
}

/// What a request handler does before it touches a tenant's tables.
func handle(tenant: String, tenants: TenantMigratorService) async throws -> String {
    // A dictionary lookup under a lock; one catalog query for a tenant first seen after boot.
    guard try await tenants.checkReady(tenant: tenant) else { return "503 Service Unavailable" }
    return "200 OK"
}

/// A health page: where each tenant stands, without a query.
func describe(tenant: String, tenants: TenantMigratorService) -> String {
    switch tenants.status(of: tenant) {
    case .ready: return "ready"
    case .migrating, .pending, .waitingForLock: return "not yet"
    case .failed(let failure): return "failed [\(failure.sqlState ?? "no SQLSTATE")]: \(failure.message)"
    case .pinned(let version): return "pinned at \(version)"
    case .unknown: return "unknown (checkReady(tenant:) looks it up)"
    }
}
