import EntityModel
import Foundation
import LibPQ
import Logging
import MigrationEngine
import Tracing

/// Migrates one tenant at a time, safely: one transaction per attempt, the tenant's advisory lock,
/// the recorded version re-read under that lock, a bounded `lock_timeout`, and bounded retries.
///
/// Per attempt, in ONE transaction:
/// 1. `SET LOCAL lock_timeout`, so that no wait below queues in front of application traffic for long;
/// 2. `pg_advisory_xact_lock` on (catalog, tenant), so two runners on one tenant serialize;
/// 3. the tenant's record is read `FOR UPDATE`; a tenant already at the target is left alone, and
///    so is a pinned one unless the ``PinPolicy`` overrides its pin;
/// 4. the plan is made from the recorded version (a planning error touches nothing and records
///    nothing); destructive plans are refused unless allowed, and so is a recorded version whose
///    model file changed since the tenant reached it (unless ``acceptModelChange``);
/// 5. every table of the tenant's model is locked up front, in a fixed order, never waiting for one
///    lock while holding another (see `TenantMigrationRunner+Locks.swift`), and triggers the model
///    did not create are disabled for the transaction (``ForeignTriggers``);
/// 6. every step runs in the tenant's schema, then the new version and a history row are written;
///    a rollback pins the tenant at the version it reached, a move past a pin clears it.
///
/// A lock timeout (55P03) or deadlock (40P01) rolls the attempt back and retries after an exponential
/// backoff with jitter, up to ``maxAttempts``. Any other error rolls the attempt back; then, in a new
/// transaction, the failure is recorded (state `failed`, history row with the error and SQLSTATE) and
/// a ``TenantMigrationError`` is thrown.
public struct TenantMigrationRunner: Sendable {
    public var catalog: TenantCatalog
    public var planner: MigrationPlanner
    /// How long one statement may wait for a lock before the attempt is abandoned and retried.
    /// Zero disables the limit (PostgreSQL's meaning of `lock_timeout = 0`).
    public var lockTimeout: Duration
    /// Attempts before a lock timeout becomes a failure (at least 1).
    public var maxAttempts: Int
    /// The first backoff; each retry doubles it, up to ``backoffCap``. Each wait is drawn uniformly
    /// from [half, all] of that value (jitter), so competing runners spread out.
    public var backoffBase: Duration
    public var backoffCap: Duration
    /// Migrate tenants whose recorded version's model file has changed since they reached it.
    /// Off by default: such a tenant is refused before anything is touched
    /// (``TenantMigratorError/modelChanged(version:file:tenants:)``), because the plan would assume a shape
    /// the tenant does not have. For the operator who knows the change is cosmetic.
    public var acceptModelChange: Bool = false
    /// The fleet run this runner works for, if any: a stop while a tenant waits for its locks
    /// cancels the wait, and the tenant is reported as ``TenantMigrationError/Reason/interrupted``.
    public var control: FleetControl?
    /// Copy what each step destroys or overwrites into the tenant's archive first (the default),
    /// so a rollback gives it back; archived losses then need no consent. Off (`--no-archive`),
    /// every destroyed value is truly lost and needs `allowDestructive`.
    public var archives = true
    /// Where each tenant's and each step's metrics and spans go (the global systems by default).
    public var observability = TenantMigrator.Observability()

    public init(
        catalog: TenantCatalog,
        planner: MigrationPlanner,
        lockTimeout: Duration = .seconds(5),
        maxAttempts: Int = 5,
        backoffBase: Duration = .milliseconds(200),
        backoffCap: Duration = .seconds(10)
    ) {
        self.catalog = catalog
        self.planner = planner
        self.lockTimeout = lockTimeout
        self.maxAttempts = max(1, maxAttempts)
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
    }

    /// The family being migrated.
    public var family: ModelFamily { planner.family }

    /// Moves `tenant` to `target` (the family's latest when nil).
    ///
    /// - Parameters:
    ///   - allowDestructive: run plans that drop data (dropped tables or columns, narrowed types).
    ///   - direction: the only way the tenant may move (`.up` for `migrate`, `.down` for `rollback`); nil for either. A plan the other way is refused; staying put is always allowed.
    ///   - pins: what to do with a pinned tenant: ``PinPolicy/respect`` (fleet runs, `migrateIfNeeded`)
    ///     leaves it alone (outcome ``TenantMigrationResult/Outcome/pinned``); ``PinPolicy/override``,
    ///     the default for a call that names one tenant, moves it and clears the pin. Whatever the policy, a successful move down pins the
    ///     tenant at the version it reached.
    /// - Returns: a result with outcome ``TenantMigrationResult/Outcome/migrated``,
    ///   ``TenantMigrationResult/Outcome/alreadyCurrent`` or ``TenantMigrationResult/Outcome/pinned``.
    /// - Throws: ``TenantMigratorError`` (unknown tenant or version, other family) and ``PlanningError``
    ///   before anything is touched; ``TenantMigrationError`` for refusals and failures.
    ///   - mode: ``MigrationRunMode/apply`` to keep the result; a trial mode rolls everything back
    ///     and records nothing (see ``MigrationRunMode``).
    public func migrate(
        _ tenant: TenantName, to target: String?, allowDestructive: Bool, direction: MigrationDirection? = nil,
        mode: MigrationRunMode = .apply, pins: PinPolicy = .override, on connection: Connection
    ) throws -> TenantMigrationResult {
        try observingTenant(tenant, to: target ?? family.latestVersion.name, mode: mode) { span in
            try migrateInAttempts(
                tenant, to: target, allowDestructive: allowDestructive, direction: direction, mode: mode, pins: pins, span: span,
                on: connection
            )
        }
    }

    /// ``migrate(_:to:allowDestructive:direction:mode:pins:on:)`` inside the tenant's span.
    private func migrateInAttempts(
        _ tenant: TenantName, to target: String?, allowDestructive: Bool, direction: MigrationDirection?,
        mode: MigrationRunMode, pins: PinPolicy, span: any Span, on connection: Connection
    ) throws -> TenantMigrationResult {
        let clock = ContinuousClock()
        let started = clock.now
        let startedAt = Date()
        let family = planner.family
        let destination = try family.requireVersion(named: target)
        var logger = connection.logger
        logger[metadataKey: "tenant"] = "\(tenant)"
        // Every statement logged while this tenant migrates carries its name.
        let previousLogger = connection.logger
        connection.logger = logger
        defer { connection.logger = previousLogger }
        func elapsed() -> Double { (clock.now - started).inMilliseconds }

        var attempt = 0
        while true {
            attempt += 1
            let state = AttemptState()
            do {
                let outcome: AttemptOutcome
                do {
                    outcome = try connection.transaction { connection in
                        try attemptMigration(
                            tenant, to: destination, allowDestructive: allowDestructive, direction: direction, mode: mode,
                            pins: pins, attempt: attempt, startedAt: startedAt, state: state, logger: logger, on: connection
                        )
                    }
                } catch let trial as TrialRolledBack {
                    outcome = trial.outcome
                }
                switch outcome {
                case let .alreadyCurrent(version):
                    logger.debug("already at \(version)", metadata: ["step": "\(version)"])
                    return TenantMigrationResult(
                        tenant: tenant, fromVersion: version, toVersion: destination.name, outcome: .alreadyCurrent,
                        attempts: attempt, milliseconds: elapsed()
                    )
                case let .pinned(version, pin):
                    logger.debug("pinned at \(pin), left at \(version)", metadata: ["step": "\(version)"])
                    return TenantMigrationResult(
                        tenant: tenant, fromVersion: version, toVersion: destination.name, outcome: .pinned,
                        attempts: attempt, milliseconds: elapsed()
                    )
                case let .migrated(from, statistics):
                    logger.info("\(mode.isTrial ? "\(mode.rawValue): would migrate" : "migrated") \(from) → \(destination.name)", metadata: [
                        "step": "\(from) → \(destination.name)", "attempts": "\(attempt)",
                        "statements": "\(statistics.statements)", "rows": "\(statistics.rowsAffected)",
                        "ms": "\(Int(elapsed()))",
                    ])
                    return TenantMigrationResult(
                        tenant: tenant, fromVersion: from, toVersion: destination.name, outcome: .migrated,
                        attempts: attempt, statistics: statistics, milliseconds: elapsed()
                    )
                }
            } catch let refusal as Refusal {
                throw refusal.error
            } catch where (error is CancellationError || SQLState.queryCanceled ~= error) && control?.isStopRequested == true {
                // Stopped while waiting for locks (or just after): rolled back, nothing to record.
                throw TenantMigrationError(
                    tenant: tenant, fromVersion: state.fromVersion ?? "?", toVersion: destination.name, reason: .interrupted,
                    attempts: attempt, milliseconds: elapsed()
                )
            } catch {
                let from = state.fromVersion ?? (try? catalog.tenant(tenant, on: connection))?.version ?? "?"
                let step = "\(from) → \(destination.name)"
                if Self.isRetryable(error) {
                    if attempt < maxAttempts {
                        try Task.checkCancellation()
                        let delay = backoff(afterAttempt: attempt)
                        observeLockRetry(after: attempt, deadlock: !(SQLState.lockNotAvailable ~= error), on: span)
                        let cause = SQLState.lockNotAvailable ~= error ? "waited longer than lock_timeout for a lock (55P03)" : "was chosen as a deadlock victim (40P01)"
                        logger.warning(
                            "attempt \(attempt) of \(maxAttempts) \(cause); rolled back, retrying in \(Int(delay * 1000)) ms",
                            metadata: ["step": "\(step)"]
                        )
                        try Self.sleep(delay)
                        continue
                    }
                    let failure = TenantMigrationError(
                        tenant: tenant, fromVersion: from, toVersion: destination.name,
                        reason: SQLState.lockNotAvailable ~= error ? .lockTimeout(lockTimeout: lockTimeout) : .stepFailed,
                        failedStep: state.runningStep?.step.description, underlying: error, attempts: attempt, milliseconds: elapsed()
                    )
                    logger.error("\(failure)", metadata: ["step": "\(step)"])
                    var recorded = failure
                    recorded.isRecorded = mode.isTrial || recordFailure(failure, startedAt: startedAt, logger: logger, on: connection)
                    throw recorded
                }
                guard let recordedFrom = state.fromVersion else {
                    // Failed before the tenant's record was read (lost connection, missing catalog):
                    // nothing is known to record against.
                    throw error
                }
                let failure = TenantMigrationError(
                    tenant: tenant, fromVersion: recordedFrom, toVersion: destination.name, reason: .stepFailed,
                    failedStep: state.runningStep?.step.description,
                    underlying: state.runningStep.map { FailureDiagnosis.explaining(error, in: $0.step, schema: $0.schema, on: connection) } ?? error,
                    attempts: attempt, milliseconds: elapsed()
                )
                logger.error("\(failure)", metadata: ["step": "\(step)"])
                var recorded = failure
                recorded.isRecorded = mode.isTrial || recordFailure(failure, startedAt: startedAt, logger: logger, on: connection)
                throw recorded
            }
        }
    }

    // MARK: - One attempt

    private enum AttemptOutcome {
        case alreadyCurrent(String)
        /// At the first version, pinned at the second; left alone.
        case pinned(String, pin: String)
        case migrated(from: String, StepStatistics)
    }

    /// What an attempt learned before it failed (a class: it is filled in inside the transaction).
    private final class AttemptState {
        var fromVersion: String?
        var runningStep: (step: MigrationStep, schema: String)?
    }

    /// Thrown at the end of a trial run so that its transaction rolls back; carries what it did.
    private struct TrialRolledBack: Error {
        let outcome: AttemptOutcome
    }

    /// An error that must pass through unrecorded (it was raised before anything was touched).
    private struct Refusal: Error {
        let error: any Error
    }

    private func attemptMigration(
        _ tenant: TenantName, to destination: ModelVersion, allowDestructive: Bool, direction: MigrationDirection?, mode: MigrationRunMode,
        pins: PinPolicy, attempt: Int, startedAt: Date, state: AttemptState, logger: Logger, on connection: Connection
    ) throws -> AttemptOutcome {
        try Self.setLockTimeout(lockTimeout, on: connection)
        try waitingForLocks(connection) { try catalog.lockTenant(tenant, on: connection) }
        let record = try catalog.requireTenant(tenant, on: connection, forUpdate: true)
        guard record.family == planner.family.name else {
            throw Refusal(error: TenantMigratorError.familyMismatch(tenant: tenant, recorded: record.family, configured: planner.family.name))
        }
        state.fromVersion = record.version
        if record.version == destination.name {
            if case let .pin(reason) = pins, !mode.isTrial {
                try catalog.pin(tenant, at: record.version, reason: reason, on: connection)
            }
            return .alreadyCurrent(record.version)
        }
        if pins == .respect, let pin = record.pinnedVersion { return .pinned(record.version, pin: pin) }

        let plan: MigrationPlan
        do {
            plan = try planner.plan(from: record.version, to: destination.name)
        } catch {
            throw Refusal(error: error)
        }
        if let direction, plan.direction != .none, plan.direction != direction {
            throw Refusal(error: TenantMigrationError(
                tenant: tenant, fromVersion: record.version, toVersion: destination.name,
                reason: .wrongDirection(direction), attempts: attempt
            ))
        }
        let destructive = plan.lostChanges(archiving: archives)
        if !destructive.isEmpty && !allowDestructive {
            throw Refusal(error: TenantMigrationError(
                tenant: tenant, fromVersion: record.version, toVersion: destination.name,
                reason: .destructiveChangesRefused(destructive), attempts: attempt
            ))
        }
        if plan.source.versionHash != record.versionHash {
            guard acceptModelChange else {
                throw Refusal(error: TenantMigratorError.modelChanged(
                    version: record.version, file: planner.family.versionFile(record.version), tenants: [tenant]
                ))
            }
            logger.warning(
                "the model file of \(record.version) changed since the tenant reached it; accepted, the plan assumes the current file",
                metadata: ["step": "\(record.version) → \(destination.name)"]
            )
        }
        try waitingForLocks(connection) {
            try Self.lockTables(Self.tablesToLock(of: plan.source, inSchema: record.schema, connection), on: connection)
        }
        let triggers = try ForeignTriggers.disable(inSchema: record.schema, on: connection)

        let rehearsal = mode == .rehearse ? Rehearsal(version: plan.source, schema: record.schema) : nil
        try rehearsal?.takeSnapshot(on: connection)
        func run(_ plan: MigrationPlan, allowDestructive: Bool) throws -> StepStatistics {
            var statistics = StepStatistics()
            for step in plan.steps {
                state.runningStep = (step, record.schema)
                logger.info(
                    "running step \(step)\(attempt > 1 ? " (attempt \(attempt))" : "")",
                    metadata: ["step": "\(step.source.name) → \(step.destination.name)", "schema": "\(record.schema)"]
                )
                statistics = statistics + (try observingStep(step) {
                    try step.run(inSchema: record.schema, on: connection, allowDestructive: allowDestructive, archives: archives)
                })
            }
            state.runningStep = nil
            return statistics
        }
        let statistics = try run(plan, allowDestructive: allowDestructive)
        if let rehearsal {
            // And back again: whatever the way back cannot restore shows up as a difference, so
            // consent to lose it is implied (the whole rehearsal is rolled back).
            let back = try planner.plan(from: destination.name, to: record.version)
            _ = try run(back, allowDestructive: true)
            if let difference = try rehearsal.firstDifference(on: connection) {
                throw RehearsalFailed(difference: difference, from: record.version, to: destination.name)
            }
        }
        try triggers.restore(on: connection)
        if mode.isTrial { throw TrialRolledBack(outcome: .migrated(from: record.version, statistics)) }
        try catalog.recordVersion(tenant, version: destination.name, versionHash: destination.versionHash, on: connection)
        try catalog.recordHistory(
            HistoryEntry(
                tenant: tenant, family: planner.family.name,
                operation: .moving(from: record.version, to: destination.name, in: planner.family), fromVersion: record.version,
                toVersion: destination.name, startedAt: startedAt, outcome: .succeeded,
                statistics: [
                    "statements": Double(statistics.statements), "rows": Double(statistics.rowsAffected),
                    "ms": statistics.milliseconds, "steps": Double(plan.steps.count), "attempts": Double(attempt),
                ]
            ),
            on: connection
        )
        try updatePin(of: record, after: plan, pins: pins, on: connection)
        return .migrated(from: record.version, statistics)
    }

    /// After `record`'s tenant moved along `plan`: pins it where it is now, for ``PinPolicy/pin(reason:)``
    /// and after a rollback, or clears the pin it moved past.
    private func updatePin(of record: TenantRecord, after plan: MigrationPlan, pins: PinPolicy, on connection: Connection) throws {
        if case let .pin(reason) = pins {
            try catalog.pin(record.name, at: plan.destination.name, reason: reason, on: connection)
        } else if plan.direction == .down {
            try catalog.pin(record.name, at: plan.destination.name, reason: Self.rollbackPinReason, on: connection)
        } else if record.isPinned {
            try catalog.unpin(record.name, on: connection)
        }
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
                try Self.setLockTimeout(max(lockTimeout, .seconds(1)), on: connection)
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
    private func waitingForLocks<T>(_ connection: Connection, _ body: () throws -> T) throws -> T {
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
        let base = backoffBase.inSeconds
        let cap = backoffCap.inSeconds
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
