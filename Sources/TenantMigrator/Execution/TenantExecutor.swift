import EntityModel
import Foundation
import LibPQ
import Logging
import MigrationEngine
import Tracing

/// Migrates one tenant at a time, safely: one transaction per attempt, the tenant's lock (its
/// catalog row), the recorded version re-read under that lock, a bounded `lock_timeout`, and bounded retries.
///
/// Per attempt, in ONE transaction:
/// 1. `SET LOCAL lock_timeout`, so that no wait below queues in front of application traffic for long;
/// 2. the tenant's catalog row `FOR UPDATE` (``TenantCatalog/lockTenant(_:on:)``; no live online run
///    of another session may hold it), so two runners on one tenant serialize;
/// 3. the tenant's record is read `FOR UPDATE`; a tenant already at the target is left alone, and
///    so is a pinned one unless the ``PinPolicy`` overrides its pin;
/// 4. the plan is made from the recorded version (a planning error touches nothing and records
///    nothing); destructive plans are refused unless allowed, and so is a recorded version whose
///    model file changed since the tenant reached it (unless ``acceptModelChange``);
/// 5. every table of the tenant's model is locked up front, in a fixed order, never waiting for one
///    lock while holding another (see `TenantExecutor+Locks.swift`); triggers and rules the model
///    did not create, and row security forced on the tables, are switched off for the transaction
///    (``ForeignHooks``), and what tables another role owns use is checked;
/// 6. every step runs in the tenant's schema, then the new version and a history row are written;
///    a rollback pins the tenant at the version it reached, a move past a pin clears it.
///
/// A lock timeout (55P03) or deadlock (40P01) rolls the attempt back and retries after an exponential
/// backoff with jitter, up to ``maxAttempts``. Any other error rolls the attempt back; then, in a new
/// transaction, the failure is recorded (state `failed`, history row with the error and SQLSTATE) and
/// a ``TenantMigrationError`` is thrown.
@dynamicMemberLookup
public struct TenantExecutor: Sendable {
    public var catalog: TenantCatalog
    public var planner: MigrationPlanner
    /// How migrations run: lock timeout, attempts, backoff, archive, observability.
    public var settings: MigrationSettings
    /// The fleet run this runner works for, if any: a stop while a tenant waits for its locks
    /// cancels the wait, and the tenant is reported as ``TenantMigrationError/Reason/interrupted``.
    public var control: FleetControl?
    /// The plans of the fleet run this runner works for (nil: each tenant is planned afresh).
    var plans: PlanCache?
    /// Whether the catalog is known to be at its current version (the fleet run installed or
    /// upgraded it): a tenant's record is then read without a savepoint to fall back on for a
    /// catalog from before pins.
    var catalogIsCurrent = false

    public init(catalog: TenantCatalog, planner: MigrationPlanner, settings: MigrationSettings = MigrationSettings()) {
        self.catalog = catalog
        self.planner = planner
        self.settings = settings
    }

    @available(*, deprecated, message: "use init(catalog:planner:settings:)")
    public init(
        catalog: TenantCatalog, planner: MigrationPlanner, lockTimeout: Duration = .seconds(5), maxAttempts: Int = 5,
        backoffBase: Duration = .milliseconds(200), backoffCap: Duration = .seconds(10)
    ) {
        var settings = MigrationSettings(lockTimeout: lockTimeout, maxAttempts: maxAttempts)
        settings.backoffBase = backoffBase
        settings.backoffCap = backoffCap
        self.init(catalog: catalog, planner: planner, settings: settings)
    }

    /// The family being migrated.
    public var family: ModelFamily { planner.family }

    /// Each setting of ``settings`` as a property of the runner: `runner.maxAttempts`.
    public subscript<Value>(dynamicMember setting: WritableKeyPath<MigrationSettings, Value>) -> Value {
        get { settings[keyPath: setting] }
        set { settings[keyPath: setting] = newValue }
    }

    /// Moves `tenant` as `request` asks.
    ///
    /// A pinned tenant is left alone when ``MigrationRequest/pins`` is ``PinPolicy/respect`` (outcome
    /// ``TenantMigrationResult/Outcome/pinned``); ``PinPolicy/override`` moves it and clears the pin.
    /// Whatever the policy, a successful move down pins the tenant at the version it reached.
    ///
    /// - Returns: a result with outcome ``TenantMigrationResult/Outcome/migrated``,
    ///   ``TenantMigrationResult/Outcome/alreadyCurrent`` or ``TenantMigrationResult/Outcome/pinned``.
    /// - Throws: ``TenantMigratorError`` (unknown tenant or version, other family) and
    ///   ``PlanningError`` before anything is touched; ``TenantMigrationError`` for refusals and failures.
    public func migrate(_ tenant: TenantName, _ request: MigrationRequest, on connection: Connection) throws -> TenantMigrationResult {
        try migrate(tenant, request, expecting: nil, on: connection)
    }

    /// ``migrate(_:_:on:)`` of a tenant that `expected` (a fleet's catalog query) found at a version:
    /// its first round trip then also locks that version's tables, a guess checked under the lock.
    func migrate(_ tenant: TenantName, _ request: MigrationRequest, expecting expected: TenantRecord?, on connection: Connection) throws -> TenantMigrationResult {
        let destination = try TenantMigratorError.reporting { try family.requireVersion(named: request.target) }
        return try observingTenant(tenant, to: destination.name, mode: request.mode) { span in
            var run = TenantRun(executor: self, tenant: tenant, request: request, destination: destination, span: span, connection: connection)
            if let expected, let version = family.version(named: expected.version) { run.expectation = (expected.schema, version) }
            return try run.run()
        }
    }

    @available(*, deprecated, message: "use migrate(_:_:on:) with a MigrationRequest")
    public func migrate(
        _ tenant: TenantName, to target: String?, allowDestructive: Bool, direction: MigrationDirection? = nil,
        mode: MigrationRunMode = .apply, pins: PinPolicy = .override, on connection: Connection
    ) throws -> TenantMigrationResult {
        let operation: MigrationRequest.Operation = switch direction { case .up?: .migrate; case .down?: .rollback; default: .move }
        return try migrate(tenant, MigrationRequest(operation, to: target, allowDestructive: allowDestructive, mode: mode, pins: pins), on: connection)
    }

    /// The reason recorded with the pin a rollback sets.
    public static let rollbackPinReason = "rolled back"

    // MARK: - Failures

    /// Records `failure` in a new transaction: a history row always, and the tenant's state
    /// `failed` unless another runner has moved the tenant meanwhile. A failure to record is logged,
    /// never thrown: the caller reports the original error.
    ///
    /// - Returns: whether the failure was recorded.
    @discardableResult
    func recordFailure(_ failure: TenantMigrationError, startedAt: Date, logger: Logger, on connection: Connection) -> Bool {
        let text = failure.underlyingDescription ?? failure.description
        do {
            try connection.transaction { connection in
                try Self.setLockTimeout(max(settings.lockTimeout, .seconds(1)), on: connection)
                do {
                    try connection.savepoint { connection in
                        try catalog.lockTenant(failure.tenant, on: connection)
                        if let record = try catalog.tenant(failure.tenant, on: connection, forUpdate: true),
                           record.version == failure.fromVersion {
                            try catalog.recordFailure(failure.tenant, error: text, on: connection)
                        }
                    }
                } catch SQLState.lockNotAvailable {
                    // Another runner holds the tenant (the very lock this attempt gave up on): the
                    // tenant's state is that runner's to set; the history row below still records us.
                }
                try catalog.recordHistory(
                    HistoryEntry(
                        tenant: failure.tenant, family: planner.family.name,
                        operation: .moving(from: failure.fromVersion, to: failure.toVersion, in: planner.family),
                        fromVersion: failure.fromVersion, toVersion: failure.toVersion, startedAt: startedAt,
                        outcome: .failed, error: text, sqlState: failure.sqlState?.rawValue,
                        statistics: ["attempts": Double(failure.attempts), "ms": failure.milliseconds]
                    ),
                    on: connection
                )
            }
            return true
        } catch {
            logger.error("could not record the failure in the catalog: \(error)\(connection.isHealthy ? "" : "; it is recorded once a connection is back")")
            return false
        }
    }

    /// Runs `body`, a wait for locks, so that stopping the fleet run meanwhile cancels it.
    func waitingForLocks<T>(_ connection: Connection, _ body: () throws -> T) throws -> T {
        guard let control else { return try body() }
        let token = connection.cancelToken
        return try control.whileWaitingForLocks(cancel: { token.cancel() }, body)
    }

    /// `connection`'s logger with the tenant in its metadata.
    func logger(for tenant: TenantName, _ connection: Connection) -> Logger {
        var logger = connection.logger
        logger[metadataKey: "tenant"] = "\(tenant)"
        return logger
    }

    // MARK: - Helpers

    /// Lock timeouts and deadlocks: the attempt lost a race with other sessions and may simply retry.
    static func isRetryable(_ error: any Error) -> Bool {
        SQLState.lockNotAvailable ~= error || SQLState.deadlockDetected ~= error
    }

    /// The wait before the attempt after `attempt`, in seconds: base × 2^(attempt-1), capped, with
    /// "equal jitter" (uniform in [half, all] of it).
    func backoff(afterAttempt attempt: Int) -> TimeInterval {
        let base = settings.backoffBase.inSeconds
        let cap = settings.backoffCap.inSeconds
        let exponential = min(cap, base * pow(2, Double(min(attempt - 1, 30))))
        return exponential / 2 + Double.random(in: 0...(exponential / 2))
    }

    /// Blocks this (connection) thread for `interval`, in short slices so that cancelling the
    /// calling task ends the wait promptly.
    static func sleep(_ interval: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(interval)
        while true {
            try Task.checkCancellation()
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return }
            Thread.sleep(forTimeInterval: min(remaining, 0.05))
        }
    }

    /// Whole milliseconds, rounded up so that a positive timeout never becomes 0 (no limit).
    static func wholeMilliseconds(_ duration: Duration) -> Int {
        let value = duration.inMilliseconds
        return value <= 0 ? 0 : Int(value.rounded(.up))
    }
}
