import Logging
import ServiceLifecycle
import TenantMigrator

/// Migrates a server app's tenants at boot as a swift-service-lifecycle `Service`, without ever
/// holding the app's start for one tenant, and tells request handlers which tenants are ready.
///
/// ```swift
/// let tenants = TenantMigratorService(migrator: migrator, deadline: .seconds(10), concurrency: 8, logger: logger)
/// let group = ServiceGroup(services: [tenants, app], gracefulShutdownSignals: [.sigterm], logger: logger)
/// // in a route:
/// guard tenants.isReady(tenant: name) else { throw HTTPError(.serviceUnavailable) }
/// ```
///
/// ``run()`` does, in order:
/// 1. **The boot pass.** One catalog query marks the tenants already at the latest version
///    ``Status/ready`` at once (and the others ``Status/migrating``); then the fleet is migrated over
///    ``concurrency`` connections. Each attempt waits at most ``lockTimeout`` for a lock, and a tenant
///    gets ``maxAttempts`` attempts, so a tenant held by another session's lock gives up quickly.
///    When ``deadline`` passes, the pass stops: no new tenant starts, and those waiting for locks stop
///    waiting (a tenant whose steps are already running finishes, committed or rolled back). Held and
///    failed tenants are logged one line each and listed in ``bootReport``.
/// 2. **Background retries**, until shutdown: tenants held by locks, not reached before the deadline,
///    or failed for a transient reason are retried with backoff (``RetryPolicy``); deterministic
///    failures only every ``RetryPolicy/deterministicInterval``. No tenant's failure ever ends
///    ``run()``, so it never stops the app.
/// 3. **Graceful shutdown** (`gracefulShutdown()` of the service group): no new tenant starts, the
///    tenants in flight commit or roll back, lock waits end, and ``run()`` returns.
///
/// The readiness queries (``isReady(tenant:)``, ``status(of:)``) are synchronous lookups in a
/// lock-protected dictionary: call them on every request. They report what this service has seen;
/// for a tenant created after boot, ``checkReady(tenant:)`` reads the catalog once.
public final class TenantMigratorService: Service {
    /// The migrator as configured by the app (its `lockTimeout` and `maxAttempts` are the upper
    /// bounds of the service's).
    public let migrator: TenantMigrator
    /// How long the boot pass may wait for tenants held by locks.
    public let deadline: Duration
    /// Tenants migrated at once (connections used by a pass).
    public let concurrency: Int
    public let retry: RetryPolicy
    /// How long one attempt waits for any lock: by default `deadline / 4`, at most the migrator's
    /// `lockTimeout`. It is also the longest that the app's own statements queue behind a migration.
    public let lockTimeout: Duration
    /// Attempts per tenant within one pass (at least 1): by default 2, at most the migrator's
    /// `maxAttempts`. The background retries, not the runner, try a held tenant again after that.
    public let maxAttempts: Int
    public let logger: Logger

    let board = ReadinessBoard()
    let alarm = Alarm()

    /// - Parameters:
    ///   - migrator: the app's migrator (family, catalog, connection string).
    ///   - deadline: how long the boot pass waits for tenants held by locks.
    ///   - concurrency: tenants migrated at once (connections).
    ///   - retry: how the background retries space their attempts.
    ///   - lockTimeout: one attempt's longest wait for a lock (nil: `deadline / 4`, at most the
    ///     migrator's `lockTimeout`).
    ///   - maxAttempts: attempts per tenant within one pass (nil: 2, at most the migrator's `maxAttempts`).
    public init(
        migrator: TenantMigrator,
        deadline: Duration = .seconds(10),
        concurrency: Int = 4,
        retry: RetryPolicy = RetryPolicy(),
        lockTimeout: Duration? = nil,
        maxAttempts: Int? = nil,
        logger: Logger = Logger(label: "TenantMigratorService")
    ) {
        self.migrator = migrator
        self.deadline = deadline
        self.concurrency = max(1, concurrency)
        self.retry = retry
        self.lockTimeout = lockTimeout ?? min(migrator.lockTimeout, deadline / 4)
        self.maxAttempts = max(1, maxAttempts ?? min(migrator.maxAttempts, 2))
        self.logger = logger
    }

    /// The migrator the passes run with: the app's, with this service's lock bounds.
    var passMigrator: TenantMigrator {
        var migrator = self.migrator
        migrator.lockTimeout = lockTimeout
        migrator.maxAttempts = maxAttempts
        return migrator
    }

    /// Runs the boot pass, then the background retries until a graceful shutdown (or the task is
    /// cancelled). Never throws for a tenant's failure.
    public func run() async throws {
        let board = self.board, alarm = self.alarm
        await withGracefulShutdownHandler {
            await bootPass()
            await retryUntilShutdown()
        } onGracefulShutdown: {
            board.shutDown()
            alarm.ring()
        }
        logger.info("tenant migrations stopped")
    }
}
