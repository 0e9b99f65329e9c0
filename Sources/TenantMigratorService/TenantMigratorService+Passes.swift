import Foundation
import LibPQ
import TenantMigrator

extension TenantMigratorService {
    /// What one fleet run of the service came to.
    struct PassOutcome {
        var fleet: FleetReport?
        var error: (any Error)?
        var deadlineReached = false
        var shutDown = false
    }

    /// The first pass over the whole fleet, bounded by ``deadline``; its report becomes
    /// ``bootReport``.
    func bootPass() async {
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
    func wholePass(deadline: Duration?) async -> BootReport {
        let clock = ContinuousClock()
        let started = clock.now
        let latest = migrator.family.latestVersion.name
        var outcome = PassOutcome()
        var tenants: [String] = []
        var behind: [String] = []
        do {
            for record in try await migrator.tenants() {
                let tenant = record.name.rawValue
                tenants.append(tenant)
                switch record.standing(toward: latest) {
                case .current:
                    board.set(tenant, .ready, retries: 0, nextAttempt: nil)
                case let .pinned(at: version):
                    board.set(tenant, .pinned(version: record.pinnedVersion ?? version), retries: 0, nextAttempt: nil)
                case .elsewhere:
                    behind.append(tenant)
                    board.set(tenant, .migrating, retries: 0, nextAttempt: nil)
                }
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
    func fleetRun(_ tenants: [String], deadline: Duration?) async -> PassOutcome {
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
    func log(_ tenant: String, _ status: Status, nextRetry: Duration?) {
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
    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f", duration.inSeconds)
    }
}
