import Foundation
import LibPQ
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

    private let board = ReadinessBoard()
    private let alarm = Alarm()

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
    private var passMigrator: TenantMigrator {
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

    // MARK: Readiness

    /// Whether `tenant` is known to be at the family's latest version: a dictionary lookup, cheap
    /// enough for every request (answer 503 when false).
    ///
    /// False for a tenant this service has not seen (created after the boot pass read the catalog,
    /// or before the boot pass has); use ``checkReady(tenant:)`` for those.
    public func isReady(tenant: String) -> Bool {
        board.status(of: tenant).isReady
    }

    /// Where `tenant` stands as far as this service has seen; a dictionary lookup.
    public func status(of tenant: String) -> Status {
        board.status(of: tenant)
    }

    /// Every tenant the service has seen, with its status.
    public var statuses: [String: Status] {
        board.statuses
    }

    /// The tenants seen but not ready (migrating, held, pending or failed), sorted by name.
    public var pendingTenants: [String] {
        board.statuses.filter { !$0.value.isReady }.keys.sorted()
    }

    /// What the boot pass did; nil until it has ended.
    public var bootReport: BootReport? {
        board.bootReport
    }

    /// Waits for the boot pass to end (or returns its report at once if it has) and returns its
    /// report. Only returns once ``run()`` has run the boot pass.
    public func bootCompleted() async -> BootReport {
        await board.waitForBoot()
    }

    /// Like ``isReady(tenant:)``, but a tenant the service has not seen is looked up in the
    /// catalog (one query; the answer is kept, so it costs that once per tenant). A tenant found at
    /// the latest version (one created after boot by `createTenant`) is ready; one found at an
    /// older version is scheduled for the background retries and is not ready yet.
    ///
    /// - Throws: what the catalog lookup throws (an invalid tenant name, the database unreachable).
    public func checkReady(tenant: String) async throws -> Bool {
        let known = board.status(of: tenant)
        guard known == .unknown else { return known.isReady }
        guard let record = try await migrator.tenant(named: tenant) else { return false }
        if record.standing(toward: migrator.family.latestVersion.name) == .current {
            _ = board.setIfUnknown(tenant, .ready, nextAttempt: nil)
        } else if board.setIfUnknown(tenant, .pending, nextAttempt: .now) {
            logger.info("tenant \(tenant) is at \(record.version); migrating it in the background", metadata: ["tenant": "\(tenant)"])
            alarm.ring()
        }
        return board.status(of: tenant).isReady
    }

    // MARK: Passes

    /// What one fleet run of the service came to.
    private struct PassOutcome {
        var fleet: FleetReport?
        var error: (any Error)?
        var deadlineReached = false
        var shutDown = false
    }

    /// The first pass over the whole fleet, bounded by ``deadline``; its report becomes
    /// ``bootReport``.
    private func bootPass() async {
        let report = await wholePass(deadline: deadline)
        board.finishBoot(report)
        if report.error == nil {
            let deadline = report.deadlineReached ? " (deadline reached)" : ""
            logger.info(
                "boot pass: \(report.ready.count) tenant(s) ready, \(report.held.count) held, \(report.failed.count) failed in \(Self.seconds(report.duration)) s\(deadline)"
            )
        }
    }

    /// Reads the catalog (tenants at the latest version are ready at once), then migrates every
    /// other tenant. When the pass cannot run at all, it is scheduled again with backoff.
    private func wholePass(deadline: Duration?) async -> BootReport {
        let clock = ContinuousClock()
        let started = clock.now
        let latest = migrator.family.latestVersion.name
        var outcome = PassOutcome()
        var tenants: [String] = []
        var behind: [String] = []
        do {
            // The same classification as a fleet run's (current, pinned, to move).
            let records = try await migrator.tenants()
            tenants = records.map(\.name.rawValue)
            let plan = FleetPlan(records: records, target: latest)
            for tenant in plan.current {
                board.set(tenant, .ready, retries: 0, nextAttempt: nil)
            }
            for record in plan.pinned {
                board.set(record.name.rawValue, .pinned(version: record.pinnedVersion ?? record.version), retries: 0, nextAttempt: nil)
            }
            behind = plan.pending.map(\.name.rawValue)
            for tenant in behind {
                board.set(tenant, .migrating, retries: 0, nextAttempt: nil)
            }
            if !behind.isEmpty { outcome = await fleetRun(behind, deadline: deadline) }
        } catch {
            outcome = PassOutcome(error: error)
        }
        // Tenants the run did not get to record (it stopped, or could not run): not migrated yet.
        for tenant in behind where board.status(of: tenant) == .migrating {
            board.set(tenant, .pending, nextAttempt: nil)
        }
        var report = BootReport(
            fleet: outcome.fleet, ready: [], held: [], failed: [:], error: outcome.error.map { "\($0)" },
            deadlineReached: outcome.deadlineReached, shutDown: outcome.shutDown, duration: clock.now - started
        )
        guard outcome.error == nil else {
            if !outcome.shutDown {
                let retry = self.retry
                let failures = board.wholePassFailed { failures in .now + retry.delay(beforeRetry: failures) }
                logger.error("the pass over every tenant could not run (attempt \(failures)); retrying in the background: \(outcome.error.map { "\($0)" } ?? "")")
            }
            return report
        }
        board.wholePassSucceeded()
        for tenant in tenants {
            switch board.status(of: tenant) {
            case .ready: report.ready.append(tenant)
            case .pending, .waitingForLock: report.held.append(tenant)
            case let .failed(failure): report.failed[tenant] = failure
            case .pinned: report.pinned.append(tenant)
            case .migrating, .unknown: break
            }
        }
        return report
    }

    /// Migrates `tenants` (not empty: an empty selection means every tenant) over ``concurrency``
    /// connections with this service's lock bounds, and records the outcome on the board. At
    /// `deadline` the run stops: no new tenant starts and lock waits end. A graceful shutdown stops
    /// it the same way.
    ///
    /// A tenant whose version's model file changed since it reached it makes the fleet refuse the
    /// whole run: such tenants are recorded as failed (deterministically) and the run goes on
    /// without them.
    private func fleetRun(_ tenants: [String], deadline: Duration?) async -> PassOutcome {
        let clock = ContinuousClock()
        let started = clock.now
        var remaining = tenants
        while !remaining.isEmpty {
            let outcome = await fleetRun(selection: TenantSelection(names: remaining), deadline: deadline.map { $0 - (clock.now - started) })
            guard let error = outcome.error as? TenantMigratorError, case let .modelChanged(_, _, refused) = error else {
                if let fleet = outcome.fleet { record(fleet) }
                return outcome
            }
            let failure = Failure(message: "\(error)", sqlState: nil, isDeterministic: true)
            for tenant in refused.map(\.rawValue) {
                board.set(tenant, .failed(failure), retries: board.retries(of: tenant) + 1, nextAttempt: retry.deterministicInterval.map { .now + $0 })
                log(tenant, .failed(failure), nextRetry: retry.deterministicInterval)
            }
            remaining.removeAll { name in refused.contains { $0.rawValue == name } }
        }
        return PassOutcome()
    }

    /// One fleet run over `selection`, bounded by `deadline`.
    private func fleetRun(selection: TenantSelection, deadline: Duration?) async -> PassOutcome {
        let control = FleetControl()
        guard board.begin(control) else { return PassOutcome(shutDown: true) }
        defer { board.end(control) }
        let migrator = passMigrator, jobs = concurrency
        do {
            let fleet = try await withThrowingTaskGroup(of: FleetReport?.self) { group in
                group.addTask { try await migrator.migrateAll(selection: selection, jobs: jobs, control: control) }
                if let deadline {
                    group.addTask {
                        try? await Task.sleep(for: deadline)
                        if !Task.isCancelled { control.stop() }
                        return nil
                    }
                }
                for try await fleet in group {
                    if let fleet {
                        group.cancelAll()
                        return fleet
                    }
                }
                throw CancellationError()
            }
            let shutDown = board.isShuttingDown
            return PassOutcome(fleet: fleet, deadlineReached: fleet.interrupted && !shutDown && !Task.isCancelled, shutDown: shutDown)
        } catch {
            return PassOutcome(error: error, shutDown: board.isShuttingDown)
        }
    }

    /// Records every tenant of `fleet` on the board and schedules those left behind, with a log
    /// line for each.
    private func record(_ fleet: FleetReport) {
        let now = ContinuousClock.now
        for entry in fleet.entries {
            let tenant = entry.tenant
            guard let status = Status(entry) else {
                board.forget(tenant)  // dropped meanwhile
                continue
            }
            guard status != .ready else {
                board.set(tenant, .ready, retries: 0, nextAttempt: nil)
                continue
            }
            let retries = board.retries(of: tenant) + 1
            let delay: Duration? = status.retriesWithBackoff ? retry.delay(beforeRetry: retries) : retry.deterministicInterval
            let shuttingDown = board.isShuttingDown
            board.set(tenant, status, retries: retries, nextAttempt: shuttingDown ? nil : delay.map { now + $0 })
            log(tenant, status, nextRetry: shuttingDown ? nil : delay)
        }
    }

    /// One line for a tenant left behind.
    private func log(_ tenant: String, _ status: Status, nextRetry: Duration?) {
        let next = nextRetry.map { "retrying in \(Self.seconds($0)) s" } ?? (board.isShuttingDown ? "left for the next start" : "not retried")
        switch status {
        case .waitingForLock:
            logger.warning("tenant \(tenant) is held by another session's lock (55P03); it stays on its version, \(next)",
                           metadata: ["tenant": "\(tenant)"])
        case .pending:
            logger.warning("tenant \(tenant) was not migrated before the pass stopped; \(next)", metadata: ["tenant": "\(tenant)"])
        case let .failed(failure):
            logger.error("tenant \(tenant) failed to migrate\(failure.isDeterministic ? "" : " (transient)"): \(failure.message); \(next)",
                         metadata: ["tenant": "\(tenant)", "sqlstate": "\(failure.sqlState ?? "")"])
        case let .pinned(version):
            logger.notice("tenant \(tenant) is pinned at \(version); left there", metadata: ["tenant": "\(tenant)"])
        case .ready, .migrating, .unknown:
            break
        }
    }

    /// `duration` in seconds with one decimal, for log lines.
    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f", duration.inSeconds)
    }

    // MARK: Background retries

    /// Retries the tenants the boot pass left behind, each when its backoff says, until a graceful
    /// shutdown or cancellation. Sleeps (on ``alarm``) while nothing is due.
    private func retryUntilShutdown() async {
        while !board.isShuttingDown, !Task.isCancelled {
            let now = ContinuousClock.now
            if board.takeWholePass(at: now) {
                let report = await wholePass(deadline: nil)
                if report.error == nil, !report.shutDown {
                    logger.info("pass over every tenant: \(report.ready.count) ready, \(report.held.count) held, \(report.failed.count) failed")
                }
                continue
            }
            let due = board.takeDue(at: now)
            guard !due.isEmpty else {
                // Nothing due: sleep until the next tenant is, or for an hour (a newly scheduled
                // tenant or a shutdown rings the alarm).
                await alarm.sleep(for: board.nextDue.map { $0 - now } ?? .seconds(3600))
                continue
            }
            await retryPass(due)
        }
    }

    /// One fleet run over the `due` tenants (with the statuses they had before).
    private func retryPass(_ due: [String: Status]) async {
        let names = due.keys.sorted()
        logger.debug("retrying \(names.count) tenant(s): \(names.joined(separator: ", "))")
        let outcome = await fleetRun(names, deadline: nil)
        guard let fleet = outcome.fleet else {
            // The run did not happen (shutting down, or the database unreachable): the tenants it
            // did not record are as they were; unless shutting down, try again after the next backoff.
            let now = ContinuousClock.now
            for (tenant, status) in due where board.status(of: tenant) == .migrating {
                let retries = board.retries(of: tenant) + (outcome.shutDown ? 0 : 1)
                board.set(tenant, status, retries: retries, nextAttempt: outcome.shutDown ? nil : now + retry.delay(beforeRetry: retries))
            }
            if let error = outcome.error, !outcome.shutDown {
                logger.error("retrying \(names.count) tenant(s) could not run: \(error)")
            }
            return
        }
        for entry in fleet.entries where board.status(of: entry.tenant) == .ready {
            logger.info("tenant \(entry.tenant) is ready (retried in the background)", metadata: ["tenant": "\(entry.tenant)"])
        }
    }
}
