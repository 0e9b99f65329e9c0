import EntityModel
import Foundation
import LibPQ
import MigrationEngine

/// What one call to ``TenantExecutor/migrate(_:to:allowDestructive:direction:on:)`` did for
/// one tenant: the per-tenant line of a report.
public struct TenantMigrationResult: Sendable, Codable, Hashable {
    public enum Outcome: String, Sendable, Codable {
        /// The tenant moved to ``TenantMigrationResult/toVersion``.
        case migrated
        /// The tenant was already at the target; nothing ran.
        case alreadyCurrent
        /// The migration failed and was rolled back; the tenant is still at
        /// ``TenantMigrationResult/fromVersion``.
        case failed
        /// The tenant is pinned (``TenantRecord/pinnedVersion``) and the call respects pins: it was
        /// left at ``TenantMigrationResult/fromVersion``; nothing ran and nothing was written.
        case pinned
    }

    public var tenant: TenantName
    /// The version the tenant was at when the migration started (as read under the tenant's lock).
    public var fromVersion: String
    /// The target version.
    public var toVersion: String
    public var outcome: Outcome
    /// Transactions tried (more than one when a lock timeout or deadlock forced a retry).
    public var attempts: Int
    /// Statements run, rows moved and time spent in the steps (zero unless migrated).
    public var statistics: StepStatistics
    /// Wall time of the whole call, retries and waits included.
    public var milliseconds: Double
    /// The error, when ``outcome`` is ``Outcome/failed``.
    public var error: String?
    /// The SQLSTATE of the error, when the server sent one.
    public var sqlState: String?
    /// How an online migration ran (its mode, progress and the app's waits); nil offline.
    public var online: OnlineProgress?

    public init(
        tenant: TenantName, fromVersion: String, toVersion: String, outcome: Outcome, attempts: Int,
        statistics: StepStatistics = StepStatistics(), milliseconds: Double, error: String? = nil, sqlState: String? = nil,
        online: OnlineProgress? = nil
    ) {
        self.tenant = tenant
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.outcome = outcome
        self.attempts = attempts
        self.statistics = statistics
        self.milliseconds = milliseconds
        self.error = error
        self.sqlState = sqlState
        self.online = online
    }
}

/// A tenant's migration was refused before it touched anything, or failed and was rolled back.
///
/// Refusals (``Reason/destructiveChangesRefused(_:)``, ``Reason/wrongDirection(_:)``) record
/// nothing. Failures (``Reason/stepFailed``, ``Reason/lockTimeout``) are recorded in the catalog:
/// the tenant's state becomes `failed`, and a history row keeps the error and its SQLSTATE.
public struct TenantMigrationError: Error, Sendable, CustomStringConvertible {
    public enum Reason: Sendable {
        /// A step failed on the server (or in a policy); see ``TenantMigrationError/underlying``.
        case stepFailed
        /// Every attempt timed out waiting for a lock (SQLSTATE 55P03).
        case lockTimeout(lockTimeout: Duration)
        /// The plan drops data and the caller did not allow it.
        case destructiveChangesRefused([DestructiveChange])
        /// The target lies the other way: `migrate` only moves forward, `rollback` only backward.
        case wrongDirection(MigrationDirection)
        /// The fleet run was stopped while the tenant waited for its locks; nothing was changed.
        case interrupted
        /// The server cannot run what the plan does (on Citus: a sequence that a distributed
        /// table's column draws from, changed in place); one sentence per change. SQLSTATE 0A000.
        case unsupportedByServer([String])
    }

    public var tenant: TenantName
    /// The version the tenant was (and still is) at.
    public var fromVersion: String
    /// The target version.
    public var toVersion: String
    public var reason: Reason
    /// The step that failed (`v2 → v3: mapped by …`), for ``Reason/stepFailed``.
    public var failedStep: String?
    /// The error that caused the failure: a `PQError` carrying its SQLSTATE, or a policy's error.
    public var underlying: (any Error)?
    /// Transactions tried.
    public var attempts: Int
    /// Wall time of the whole call.
    public var milliseconds: Double
    /// Whether the failure is in the catalog (state `failed` and a history row). False when the
    /// connection was lost before it could be written; a fleet run then records it on a new
    /// connection.
    public var isRecorded: Bool = false
    /// The run's mode: a trial (``MigrationRunMode/dryRun``, ``MigrationRunMode/rehearse``) says
    /// that it would fail, and that nothing was changed, where a real run says that it was rolled back.
    public var mode: MigrationRunMode = .apply

    /// Whether the run was stopped before this tenant changed anything.
    public var isInterruption: Bool {
        if case .interrupted = reason { return true }
        return false
    }

    /// Whether this error is a failure to be recorded, rather than a refusal that touched nothing.
    public var isRecordable: Bool {
        switch reason {
        case .stepFailed, .lockTimeout: return true
        case .destructiveChangesRefused, .wrongDirection, .interrupted, .unsupportedByServer: return false
        }
    }

    public init(
        tenant: TenantName, fromVersion: String, toVersion: String, reason: Reason, failedStep: String? = nil,
        underlying: (any Error)? = nil, attempts: Int, milliseconds: Double = 0
    ) {
        self.tenant = tenant
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.reason = reason
        self.failedStep = failedStep
        self.underlying = underlying
        self.attempts = attempts
        self.milliseconds = milliseconds
    }

    /// The SQLSTATE of the underlying server error, if any.
    public var sqlState: SQLState? {
        if case .unsupportedByServer = reason { return "0A000" }
        return SQLState.of(underlying)
    }

    /// The underlying error as text, without the statement.
    public var underlyingDescription: String? { underlying.map { "\($0)" } }

    /// This failure as a result line.
    public var result: TenantMigrationResult {
        TenantMigrationResult(
            tenant: tenant, fromVersion: fromVersion, toVersion: toVersion, outcome: .failed, attempts: attempts,
            milliseconds: milliseconds, error: description, sqlState: sqlState?.rawValue
        )
    }

    /// What happened, without what to do about it nor the underlying cause: the part of
    /// ``description`` that holds for any caller, for a front end (the command line) to add
    /// advice in its own words.
    public var summary: String {
        let path = "\(fromVersion) → \(toVersion)"
        switch reason {
        case .stepFailed where mode.isTrial:
            return "tenant \(tenant): " + (mode == .rehearse ? "rehearsal of \(path) failed" : "dry run of \(path) would fail")
                + (failedStep.map { " in step \($0)" } ?? "") + "; everything was rolled back, nothing was changed"
        case .stepFailed:
            var text = "tenant \(tenant): migration \(path) failed"
            if let failedStep { text += " in step \(failedStep)" }
            return text + " and was rolled back; the tenant is still at \(fromVersion)"
        case let .lockTimeout(timeout):
            return "tenant \(tenant): migration \(path) gave up after \(attempts) attempt\(attempts == 1 ? "" : "s"): "
                + "another session held a lock it needed throughout (each attempt waited lock_timeout = "
                + "\(TenantExecutor.wholeMilliseconds(timeout)) ms, SQLSTATE 55P03). Nothing was changed; the tenant is "
                + "still at \(fromVersion)"
        case let .unsupportedByServer(changes):
            return "tenant \(tenant): migration \(path) cannot run on Citus, which refuses these changes on a distributed table (SQLSTATE 0A000); "
                + "nothing was changed, the tenant is still at \(fromVersion):" + changes.map { "\n  - \($0)" }.joined()
        case .interrupted:
            return "tenant \(tenant): stopped while waiting for its locks; nothing was changed, the tenant is still at \(fromVersion)"
        case let .destructiveChangesRefused(changes):
            return "tenant \(tenant): migration \(path) would drop data, so nothing was changed:"
                + changes.map { "\n  - \($0.detail)" }.joined()
        case let .wrongDirection(allowed):
            switch allowed {
            case .up:
                return "tenant \(tenant) is at \(fromVersion), which is newer than \(toVersion); migrate only moves forward"
            case .down:
                return "tenant \(tenant) is at \(fromVersion), which is older than \(toVersion); rollback only moves backward"
            case .none:
                return "tenant \(tenant): cannot migrate \(path)"
            }
        }
    }

    /// The ``summary`` with the cause and what to do, in terms of the Swift API.
    public var description: String {
        switch reason {
        case .stepFailed:
            return summary + (underlying.map { ". Cause: \($0)" } ?? "")
        case .lockTimeout:
            return summary + ". Retry when the database is quieter, or raise `lockTimeout` / `maxAttempts`"
        case .destructiveChangesRefused:
            return summary + "\nPass `allowDestructive: true` to accept the loss."
        case .wrongDirection(.up):
            return summary + ". To go back, use `rollback(tenant: \"\(tenant)\", to: \"\(toVersion)\")`"
        case .wrongDirection(.down):
            return summary + ". To go forward, use `migrate(tenant: \"\(tenant)\", to: \"\(toVersion)\")`"
        case .unsupportedByServer:
            return summary + "\nOn Citus, give a key its generation and options, and a sequence its options, in the version that creates them (docs/Citus.md)."
        case .interrupted, .wrongDirection:
            return summary
        }
    }
}
