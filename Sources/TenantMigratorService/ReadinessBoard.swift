import Foundation
import TenantMigrator

/// The service's shared state behind one lock: every tenant's status and retry schedule, the boot
/// report, and the fleet run in progress (so that a graceful shutdown can stop it). Every read is
/// a dictionary lookup under the lock: cheap enough for a request handler.
final class ReadinessBoard: @unchecked Sendable {
    typealias Status = TenantMigratorService.Status

    /// One tenant's standing and when the background retries take it next.
    struct Entry {
        var status: Status
        /// Retries so far (the backoff grows with them).
        var retries = 0
        /// When the retry loop takes it next; nil: not scheduled (ready, or never retried).
        var nextAttempt: ContinuousClock.Instant?
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var report: BootReport?
    private var bootWaiters: [CheckedContinuation<BootReport, Never>] = []
    private var shuttingDown = false
    private var runs: [ObjectIdentifier: FleetControl] = [:]
    /// When the whole pass runs again (it could not run at all: nil while it runs or once it ran),
    /// and how often it failed so far.
    private var wholePassDue: ContinuousClock.Instant?
    private var wholePassFailures = 0

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Reading

    func status(of tenant: String) -> Status {
        locked { entries[tenant]?.status ?? .unknown }
    }

    var statuses: [String: Status] {
        locked { entries.mapValues(\.status) }
    }

    var bootReport: BootReport? { locked { report } }

    var isShuttingDown: Bool { locked { shuttingDown } }

    // MARK: Writing

    /// Sets `tenant`'s status and its next retry (none when nil), with `retries` counted so far
    /// (kept when nil).
    func set(_ tenant: String, _ status: Status, retries: Int? = nil, nextAttempt: ContinuousClock.Instant?) {
        locked {
            var entry = entries[tenant] ?? Entry(status: status)
            entry.status = status
            if let retries { entry.retries = retries }
            entry.nextAttempt = nextAttempt
            entries[tenant] = entry
        }
    }

    /// Sets `tenant`'s status only when the service has not seen it yet.
    func setIfUnknown(_ tenant: String, _ status: Status, nextAttempt: ContinuousClock.Instant?) -> Bool {
        locked {
            guard entries[tenant] == nil else { return false }
            entries[tenant] = Entry(status: status, nextAttempt: nextAttempt)
            return true
        }
    }

    func forget(_ tenant: String) {
        _ = locked { entries.removeValue(forKey: tenant) }
    }

    func retries(of tenant: String) -> Int {
        locked { entries[tenant]?.retries ?? 0 }
    }

    /// The scheduled tenants due at `now`, marked ``Status/migrating``, with the statuses they had.
    func takeDue(at now: ContinuousClock.Instant) -> [String: Status] {
        locked {
            var due: [String: Status] = [:]
            for (tenant, entry) in entries {
                guard let next = entry.nextAttempt, next <= now else { continue }
                due[tenant] = entry.status
                entries[tenant]?.status = .migrating
                entries[tenant]?.nextAttempt = nil
            }
            return due
        }
    }

    /// The earliest scheduled attempt, the whole pass's included.
    var nextDue: ContinuousClock.Instant? {
        locked { (entries.values.compactMap(\.nextAttempt) + [wholePassDue].compactMap { $0 }).min() }
    }

    // MARK: The whole pass

    /// Schedules the whole pass again after another failure to run it; returns how many so far.
    func wholePassFailed(retryAt: (Int) -> ContinuousClock.Instant) -> Int {
        locked {
            wholePassFailures += 1
            wholePassDue = retryAt(wholePassFailures)
            return wholePassFailures
        }
    }

    /// Whether the whole pass is due at `now`; taking it unschedules it.
    func takeWholePass(at now: ContinuousClock.Instant) -> Bool {
        locked {
            guard let due = wholePassDue, due <= now else { return false }
            wholePassDue = nil
            return true
        }
    }

    func wholePassSucceeded() {
        locked { wholePassFailures = 0 }
    }

    // MARK: Fleet runs and shutdown

    /// Registers a fleet run, so that a shutdown stops it; false (and the run stopped) when the
    /// service is already shutting down.
    func begin(_ control: FleetControl) -> Bool {
        let admitted = locked {
            if !shuttingDown { runs[ObjectIdentifier(control)] = control }
            return !shuttingDown
        }
        if !admitted { control.stop() }
        return admitted
    }

    func end(_ control: FleetControl) {
        _ = locked { runs.removeValue(forKey: ObjectIdentifier(control)) }
    }

    /// Takes no new passes and stops the runs in progress: their tenants in flight commit or roll
    /// back, those waiting for locks stop waiting.
    func shutDown() {
        let controls = locked {
            shuttingDown = true
            return Array(runs.values)
        }
        controls.forEach { $0.stop() }
    }

    // MARK: The boot report

    /// Keeps the first boot report and hands it to everyone waiting for it.
    func finishBoot(_ bootReport: BootReport) {
        let waiters: [CheckedContinuation<BootReport, Never>] = locked {
            guard report == nil else { return [] }
            report = bootReport
            defer { bootWaiters = [] }
            return bootWaiters
        }
        waiters.forEach { $0.resume(returning: bootReport) }
    }

    func waitForBoot() async -> BootReport {
        await withCheckedContinuation { continuation in
            let ready: BootReport? = locked {
                if report == nil { bootWaiters.append(continuation) }
                return report
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
