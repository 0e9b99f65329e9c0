import LibPQ
import TenantMigrator

/// The service's shared state behind one lock: every tenant's status and retry schedule, the boot
/// report, and the fleet run in progress (so that a graceful shutdown can stop it). Every read is
/// a dictionary lookup under the lock: cheap enough for a request handler.
final class ReadinessBoard: Sendable {
    typealias Status = TenantMigratorService.Status

    /// One tenant's standing and when the background retries take it next.
    struct Entry {
        var status: Status
        /// Retries so far (the backoff grows with them).
        var retries = 0
        /// When the retry loop takes it next; nil: not scheduled (ready, or never retried).
        var nextAttempt: ContinuousClock.Instant?
    }

    /// Everything on the board, behind its lock.
    private struct State {
        var entries: [String: Entry] = [:]
        var report: BootReport?
        var bootWaiters: [CheckedContinuation<BootReport, Never>] = []
        var shuttingDown = false
        var runs: [ObjectIdentifier: FleetControl] = [:]
        /// When the whole pass runs again (it could not run at all: nil while it runs or once it
        /// ran), and how often it failed so far.
        var wholePassDue: ContinuousClock.Instant?
        var wholePassFailures = 0
    }

    private let state = Locked(State())

    // MARK: Reading

    func status(of tenant: String) -> Status {
        state.withLock { $0.entries[tenant]?.status ?? .unknown }
    }

    var statuses: [String: Status] {
        state.withLock { $0.entries.mapValues(\.status) }
    }

    var bootReport: BootReport? { state.withLock { $0.report } }

    var isShuttingDown: Bool { state.withLock { $0.shuttingDown } }

    // MARK: Writing

    /// Sets `tenant`'s status and its next retry (none when nil), with `retries` counted so far
    /// (kept when nil).
    func set(_ tenant: String, _ status: Status, retries: Int? = nil, nextAttempt: ContinuousClock.Instant?) {
        state.withLock { state in
            var entry = state.entries[tenant] ?? Entry(status: status)
            entry.status = status
            if let retries { entry.retries = retries }
            entry.nextAttempt = nextAttempt
            state.entries[tenant] = entry
        }
    }

    /// Sets `tenant`'s status only when the service has not seen it yet.
    func setIfUnknown(_ tenant: String, _ status: Status, nextAttempt: ContinuousClock.Instant?) -> Bool {
        state.withLock { state in
            guard state.entries[tenant] == nil else { return false }
            state.entries[tenant] = Entry(status: status, nextAttempt: nextAttempt)
            return true
        }
    }

    func forget(_ tenant: String) {
        _ = state.withLock { $0.entries.removeValue(forKey: tenant) }
    }

    func retries(of tenant: String) -> Int {
        state.withLock { $0.entries[tenant]?.retries ?? 0 }
    }

    /// The scheduled tenants due at `now`, marked ``Status/migrating``, with the statuses they had.
    func takeDue(at now: ContinuousClock.Instant) -> [String: Status] {
        state.withLock { state in
            var due: [String: Status] = [:]
            for (tenant, entry) in state.entries {
                guard let next = entry.nextAttempt, next <= now else { continue }
                due[tenant] = entry.status
                state.entries[tenant]?.status = .migrating
                state.entries[tenant]?.nextAttempt = nil
            }
            return due
        }
    }

    /// The earliest scheduled attempt, the whole pass's included.
    var nextDue: ContinuousClock.Instant? {
        state.withLock { state in
            (state.entries.values.compactMap(\.nextAttempt) + [state.wholePassDue].compactMap { $0 }).min()
        }
    }

    // MARK: The whole pass

    /// Schedules the whole pass again after another failure to run it; returns how many so far.
    func wholePassFailed(retryAt: (Int) -> ContinuousClock.Instant) -> Int {
        state.withLock { state in
            state.wholePassFailures += 1
            state.wholePassDue = retryAt(state.wholePassFailures)
            return state.wholePassFailures
        }
    }

    /// Whether the whole pass is due at `now`; taking it unschedules it.
    func takeWholePass(at now: ContinuousClock.Instant) -> Bool {
        state.withLock { state in
            guard let due = state.wholePassDue, due <= now else { return false }
            state.wholePassDue = nil
            return true
        }
    }

    func wholePassSucceeded() {
        state.withLock { $0.wholePassFailures = 0 }
    }

    // MARK: Fleet runs and shutdown

    /// Registers a fleet run, so that a shutdown stops it; false (and the run stopped) when the
    /// service is already shutting down.
    func begin(_ control: FleetControl) -> Bool {
        let admitted = state.withLock { state in
            if !state.shuttingDown { state.runs[ObjectIdentifier(control)] = control }
            return !state.shuttingDown
        }
        if !admitted { control.stop() }
        return admitted
    }

    func end(_ control: FleetControl) {
        _ = state.withLock { $0.runs.removeValue(forKey: ObjectIdentifier(control)) }
    }

    /// Takes no new passes and stops the runs in progress: their tenants in flight commit or roll
    /// back, those waiting for locks stop waiting.
    func shutDown() {
        let controls = state.withLock { state in
            state.shuttingDown = true
            return Array(state.runs.values)
        }
        controls.forEach { $0.stop() }
    }

    // MARK: The boot report

    /// Keeps the first boot report and hands it to everyone waiting for it.
    func finishBoot(_ bootReport: BootReport) {
        let waiters = state.withLock { state -> [CheckedContinuation<BootReport, Never>] in
            guard state.report == nil else { return [] }
            state.report = bootReport
            defer { state.bootWaiters = [] }
            return state.bootWaiters
        }
        waiters.forEach { $0.resume(returning: bootReport) }
    }

    func waitForBoot() async -> BootReport {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> BootReport? in
                if state.report == nil { state.bootWaiters.append(continuation) }
                return state.report
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
