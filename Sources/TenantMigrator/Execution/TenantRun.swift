import EntityModel
import Foundation
import LibPQ
import Logging
import MigrationEngine
import Tracing

/// One call of ``TenantExecutor/migrate(_:_:on:)``: the tenant, what it is asked, and the
/// attempts it takes (one transaction each), retried on lock timeouts and deadlocks.
struct TenantRun {
    let executor: TenantExecutor
    let tenant: TenantName
    let request: MigrationRequest
    let destination: ModelVersion
    let span: any Span
    let connection: Connection
    /// Where the fleet's catalog query found the tenant: its schema and version, whose tables the
    /// first round trip locks (nil: not known, they are locked once the record is read).
    var expectation: (schema: String, version: ModelVersion)?
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    let startedAt = Date()
    let logger: Logger

    init(executor: TenantExecutor, tenant: TenantName, request: MigrationRequest, destination: ModelVersion, span: any Span, connection: Connection) {
        self.executor = executor
        self.tenant = tenant
        self.request = request
        self.destination = destination
        self.span = span
        self.connection = connection
        self.started = clock.now
        self.logger = executor.logger(for: tenant, connection)
    }

    var settings: MigrationSettings { executor.settings }
    var catalog: TenantCatalog { executor.catalog }
    var family: ModelFamily { executor.family }
    func elapsed() -> Double { (clock.now - started).inMilliseconds }

    /// The call: online (``OnlineRun``) when the request asks for it and keeps what it does,
    /// otherwise every attempt in a transaction of its own.
    func run() throws -> TenantMigrationResult {
        // Every statement logged while this tenant migrates carries its name.
        let previousLogger = connection.logger
        connection.logger = logger
        defer { connection.logger = previousLogger }
        if request.online != .off, !request.mode.isTrial { return try OnlineRun(self).run() }
        return try runOffline()
    }

    /// Every attempt, until one ends the call.
    func runOffline() throws -> TenantMigrationResult {
        var attempt = 0, waits = 0
        while true {
            attempt += 1
            let state = AttemptState()
            do {
                let outcome: AttemptOutcome
                do {
                    outcome = try connection.transaction { _ in try self.attempt(attempt, state: state) }
                } catch let trial as TrialRolledBack {
                    outcome = trial.outcome
                }
                return result(of: outcome, attempts: attempt)
            } catch let refusal as Refusal {
                throw refusal.error
            } catch let error where error is TenantHeldOnline || isLockTimeoutOfAnOnlineRun(error) {
                // Not an attempt of this run's: the tenant is another run's until it ends.
                try waitForOnlineRun(&waits)
                attempt -= 1
            } catch where isStop(error) {
                // Stopped while waiting for locks (or just after): rolled back, nothing to record.
                throw interrupted(from: state.fromVersion, attempts: attempt)
            } catch {
                if TenantExecutor.isRetryable(error), attempt < settings.maxAttempts {
                    try retry(after: attempt, error, from: state.fromVersion)
                    continue
                }
                throw try failure(error, attempt: attempt, state: state)
            }
        }
    }

    func result(of outcome: AttemptOutcome, attempts: Int) -> TenantMigrationResult {
        switch outcome {
        case let .alreadyCurrent(version):
            logger.debug("already at \(version)", metadata: ["step": "\(version)"])
            return TenantMigrationResult(
                tenant: tenant, fromVersion: version, toVersion: destination.name, outcome: .alreadyCurrent, attempts: attempts, milliseconds: elapsed()
            )
        case let .pinned(version, pin):
            logger.debug("pinned at \(pin), left at \(version)", metadata: ["step": "\(version)"])
            return TenantMigrationResult(
                tenant: tenant, fromVersion: version, toVersion: destination.name, outcome: .pinned, attempts: attempts, milliseconds: elapsed()
            )
        case let .migrated(from, statistics):
            logger.info("\(request.mode.isTrial ? "\(request.mode.rawValue): would migrate" : "migrated") \(from) → \(destination.name)", metadata: [
                "step": "\(from) → \(destination.name)", "attempts": "\(attempts)",
                "statements": "\(statistics.statements)", "rows": "\(statistics.rowsAffected)", "ms": "\(Int(elapsed()))",
            ])
            if statistics.supersededEntries > 0 {
                let count = statistics.supersededEntries
                let message = "\(count) archived value\(count == 1 ? " was" : "s were") not given back: the app changed "
                    + "\(count == 1 ? "it" : "them") since (or deleted the row); kept in the archive, marked superseded "
                    + "(tenant-migrate archive list; archive restore --superseded)"
                logger.warning("\(message)", metadata: ["step": "\(from) → \(destination.name)"])
            }
            return TenantMigrationResult(
                tenant: tenant, fromVersion: from, toVersion: destination.name, outcome: .migrated, attempts: attempts,
                statistics: statistics, milliseconds: elapsed()
            )
        }
    }

    /// Whether `error` ends the call because the fleet was stopped: a wait or a statement it
    /// cancelled.
    func isStop(_ error: any Error) -> Bool {
        (error is CancellationError || SQLState.queryCanceled ~= error) && executor.control?.isStopRequested == true
    }

    /// The call's end when the fleet stopped it: everything rolled back, nothing to record.
    func interrupted(from version: String?, attempts: Int) -> TenantMigrationError {
        TenantMigrationError(
            tenant: tenant, fromVersion: version ?? "?", toVersion: destination.name, reason: .interrupted, attempts: attempts, milliseconds: elapsed()
        )
    }

    /// Waits a while for another session's online run of the tenant to end (``TenantHeldOnline``),
    /// holding nothing: a backoff that grows to a second at most, `waits` counting them. The first
    /// wait is logged. A stop of the fleet ends the wait, the tenant not started.
    func waitForOnlineRun(_ waits: inout Int) throws {
        if executor.control?.isStopRequested == true { throw interrupted(from: nil, attempts: 0) }
        if waits == 0 { logger.notice("an online migration of tenant \(tenant) runs in another session; waiting for it to end") }
        waits += 1
        try TenantExecutor.sleep(min(executor.backoff(afterAttempt: waits), 1))
    }

    /// Whether `error` is a lock timeout (55P03) met while another session's online run holds the
    /// tenant: its cutover holds the tenant's row, however long a loaded server makes it. That is
    /// the other run's time, as its copy's is (``waitForOnlineRun(_:)``), not a lost race of this
    /// run's. Asked after the attempt rolled back, in a statement of its own.
    func isLockTimeoutOfAnOnlineRun(_ error: any Error) -> Bool {
        guard SQLState.lockNotAvailable ~= error, !connection.isInTransaction else { return false }
        return (try? catalog.isHeldByOnlineRun(tenant, on: connection)) ?? false
    }

    /// Waits out the backoff after a lost race for locks.
    private func retry(after attempt: Int, _ error: any Error, from version: String?) throws {
        try Task.checkCancellation()
        let delay = executor.backoff(afterAttempt: attempt)
        let timedOut = SQLState.lockNotAvailable ~= error
        executor.observeLockRetry(after: attempt, deadlock: !timedOut, on: span)
        let cause = timedOut ? "waited longer than lock_timeout for a lock (55P03)" : "was chosen as a deadlock victim (40P01)"
        logger.warning("attempt \(attempt) of \(settings.maxAttempts) \(cause); rolled back, retrying in \(Int(delay * 1000)) ms",
                       metadata: ["step": "\(version ?? "?") → \(destination.name)"])
        try TenantExecutor.sleep(delay)
    }

    /// `error` as the call's failure, recorded in the catalog (unless a trial); thrown as it is
    /// when it came before the tenant's record was read. `failedStep` names the step an online
    /// run's failure belongs to, where the offline path's running step is not set.
    func failure(_ error: any Error, attempt: Int, state: AttemptState, failedStep: MigrationStep? = nil) throws -> any Error {
        let retryable = TenantExecutor.isRetryable(error)
        guard let from = state.fromVersion ?? (retryable ? (try? catalog.tenant(tenant, on: connection))?.version ?? "?" : nil) else {
            // Failed before the tenant's record was read (lost connection, missing catalog):
            // nothing is known to record against.
            return error
        }
        let lockTimedOut = retryable && SQLState.lockNotAvailable ~= error
        var failure = TenantMigrationError(
            tenant: tenant, fromVersion: from, toVersion: destination.name,
            reason: lockTimedOut ? .lockTimeout(lockTimeout: settings.lockTimeout) : .stepFailed,
            failedStep: (state.runningStep?.step ?? failedStep)?.description,
            underlying: lockTimedOut ? error : state.runningStep.map { FailureDiagnosis.explaining(error, in: $0.step, schema: $0.schema, on: connection) } ?? error,
            attempts: attempt, milliseconds: elapsed()
        )
        failure.mode = request.mode
        logger.error("\(failure)", metadata: ["step": "\(from) → \(destination.name)"])
        failure.isRecorded = request.mode.isTrial || executor.recordFailure(failure, startedAt: startedAt, logger: logger, on: connection)
        return failure
    }

    // MARK: - One attempt

    enum AttemptOutcome {
        case alreadyCurrent(String)
        /// At the first version, pinned at the second; left alone.
        case pinned(String, pin: String)
        case migrated(from: String, StepStatistics)
    }

    /// What an attempt learned before it failed (a class: it is filled in inside the transaction).
    final class AttemptState {
        var fromVersion: String?
        /// The step running, and the schema it runs in.
        var runningStep: (step: MigrationStep, schema: String)?
        /// What the attempt knows of the tenant's archive, shared by its steps.
        var archive: ArchivePresence?
        /// The tenant's tables another role owns (``TenantSchemaFacts/untrustedOwners``).
        var untrustedOwners: [String] = []
    }

    /// Thrown at the end of a trial run so that its transaction rolls back; carries what it did.
    struct TrialRolledBack: Error {
        let outcome: AttemptOutcome
    }

    /// An error that must pass through unrecorded (it was raised before anything was touched).
    struct Refusal: Error {
        let error: any Error
    }

    /// One attempt, in the transaction the caller opened.
    private func attempt(_ attempt: Int, state: AttemptState) throws -> AttemptOutcome {
        let opening = try open()
        let record = opening.record
        guard record.family == family.name else {
            throw Refusal(error: TenantMigratorError.familyMismatch(tenant: tenant, recorded: record.family, configured: family.name))
        }
        state.fromVersion = record.version
        switch record.standing(toward: destination.name) {
        case .current:
            if case let .pin(reason) = request.pins, !request.mode.isTrial {
                try catalog.pin(tenant, at: record.version, reason: reason, on: connection)
            }
            return .alreadyCurrent(record.version)
        case let .pinned(at: version) where request.pins == .respect:
            return .pinned(version, pin: record.pinnedVersion ?? version)
        case .pinned, .elsewhere:
            break
        }
        let plan = try checkedPlan(for: record, attempt: attempt)
        let facts = try lockedFacts(after: opening, for: plan, inSchema: record.schema)
        do { try facts.requireMigratable(tenant) } catch { throw Refusal(error: error) }
        let hooks = try ForeignHooks.disable(facts.hooks, inSchema: record.schema, on: connection)
        state.archive = ArchivePresence(
            exists: facts.hasArchive, mayHaveDefaultPrivileges: facts.mayHaveDefaultPrivileges,
            schemaHasOtherOwner: facts.schemaHasOtherOwner, current: facts.archiveIsCurrent
        )
        state.untrustedOwners = facts.untrustedOwners

        let rehearsal = request.mode == .rehearse ? Rehearsal(version: plan.source, schema: record.schema) : nil
        if let rehearsal {
            // The snapshot reads the tables' rows: what they are made of is judged first (a view the
            // table's owner put in its place would run its functions with the migrator's rights).
            try requireTrusted(plan, in: record.schema, state: state)
            try rehearsal.takeSnapshot(on: connection)
        }
        var statistics = try run(plan, in: record.schema, allowDestructive: request.allowDestructive, attempt: attempt, state: state)
        if let rehearsal {
            // And back again: whatever the way back cannot restore shows up as a difference, so
            // consent to lose it is implied (the whole rehearsal is rolled back).
            let back = try executor.checkedPlan(from: destination.name, to: record.version).plan
            // What the archive did on the way back is the rehearsal's to report.
            statistics.addArchiveCounts(of: try run(back, in: record.schema, allowDestructive: true, attempt: attempt, state: state))
            if let difference = try rehearsal.firstDifference(on: connection) {
                throw RehearsalFailed(difference: difference, from: record.version, to: destination.name)
            }
        }
        try hooks.restore(on: connection)
        if request.mode.isTrial { throw TrialRolledBack(outcome: .migrated(from: record.version, statistics)) }
        try recordMove(plan, for: record, statistics: statistics, attempt: attempt)
        return .migrated(from: record.version, statistics)
    }

    /// The plan from the tenant's recorded version, once it is known to be allowed: the right
    /// direction, consent for what it loses, a server that can run it (not, on Citus, one that
    /// changes a sequence a table draws from in place), the model file the tenant was migrated with.
    func checkedPlan(for record: TenantRecord, attempt: Int) throws -> MigrationPlan {
        let checked: PlanCache.Entry
        do {
            checked = try executor.checkedPlan(from: record.version, to: destination.name)
        } catch {
            throw Refusal(error: error)
        }
        let plan = checked.plan
        func refuse(_ reason: TenantMigrationError.Reason) -> Refusal {
            Refusal(error: TenantMigrationError(tenant: tenant, fromVersion: record.version, toVersion: destination.name, reason: reason, attempts: attempt))
        }
        guard request.operation.allows(plan.direction) else { throw refuse(.wrongDirection(request.operation.direction ?? .none)) }
        let lost = checked.lostChanges
        if !lost.isEmpty && !request.allowDestructive { throw refuse(.destructiveChangesRefused(lost)) }
        if try !connection.capabilities.altersColumnSequencesInPlace, case let alterations = plan.inPlaceSequenceAlterations, !alterations.isEmpty {
            // Citus would refuse it in its step (0A000): refused before anything runs.
            throw refuse(.unsupportedByServer(alterations))
        }
        if plan.source.versionHash != record.versionHash {
            guard settings.acceptModelChange else {
                throw Refusal(error: TenantMigratorError.modelChanged(version: record.version, file: family.versionFile(record.version), tenants: [tenant]))
            }
            logger.warning(
                "the model file of \(record.version) changed since the tenant reached it; accepted, the plan assumes the current file",
                metadata: ["step": "\(record.version) → \(destination.name)"]
            )
        }
        return plan
    }

    /// Runs every step of `plan` in the tenant's schema, each in its span.
    private func run(_ plan: MigrationPlan, in schema: String, allowDestructive: Bool, attempt: Int, state: AttemptState) throws -> StepStatistics {
        var stepExecutor = StepExecutor(schema: schema, connection: connection, options: .init(allowDestructive: allowDestructive, archives: settings.archives, provesWayBack: settings.provesWayBack))
        if let archive = state.archive { stepExecutor.archive = archive }
        stepExecutor.memory = executor.plans?.memory
        // What the tenant's tables already use runs as the migrator when its steps write their rows;
        // tables another role owns may have got something new since the last migration.
        try requireTrusted(plan, in: schema, state: state)
        var statistics = StepStatistics()
        for step in plan.steps {
            state.runningStep = (step, schema)
            logger.info("running step \(step)\(attempt > 1 ? " (attempt \(attempt))" : "")",
                        metadata: ["step": "\(step.source.name) → \(step.destination.name)", "schema": "\(schema)"])
            statistics = statistics + (try executor.observingStep(step) { try stepExecutor.run(step) })
        }
        state.runningStep = nil
        return statistics
    }

    /// Refuses the tenant (``UntrustedExpression``, 42501) when what the tables of `plan`'s first
    /// version use in `schema` is not trusted (``ExpressionTrust/requireTrustedTenant(at:inSchema:always:on:)``),
    /// before anything reads or writes their rows.
    private func requireTrusted(_ plan: MigrationPlan, in schema: String, state: AttemptState) throws {
        guard let start = plan.steps.first?.source else { return }
        try ExpressionTrust.requireTrustedTenant(at: start, inSchema: schema, always: !state.untrustedOwners.isEmpty, on: connection)
    }

    /// Writes the new version, a history row and the pin the move sets or clears.
    /// The statements go out with the transaction's `COMMIT`, in one round trip.
    func recordMove(_ plan: MigrationPlan, for record: TenantRecord, statistics: StepStatistics, attempt: Int, extra: [String: Double] = [:]) throws {
        try connection.sendWithNextRoundTrip(catalog.recordVersionStatement(tenant, version: destination.name, versionHash: destination.versionHash))
        try connection.sendWithNextRoundTrip(try catalog.historyStatement(
            HistoryEntry(
                tenant: tenant, family: family.name, operation: plan.direction == .down ? .rollback : .migrate,
                fromVersion: record.version, toVersion: destination.name, startedAt: startedAt, outcome: .succeeded,
                statistics: [
                    "statements": Double(statistics.statements), "rows": Double(statistics.rowsAffected),
                    "ms": statistics.milliseconds, "steps": Double(plan.steps.count), "attempts": Double(attempt),
                ].merging(extra) { _, online in online }
            )
        ))
        if case let .pin(reason) = request.pins {
            try connection.sendWithNextRoundTrip(catalog.pinStatement(tenant, to: plan.destination.name, reason: reason))
        } else if plan.direction == .down {
            try connection.sendWithNextRoundTrip(catalog.pinStatement(tenant, to: plan.destination.name, reason: TenantExecutor.rollbackPinReason))
        } else if record.isPinned {
            try connection.sendWithNextRoundTrip(catalog.pinStatement(tenant, to: nil, reason: nil))
        }
    }
}
