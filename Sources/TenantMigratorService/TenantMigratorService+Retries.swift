import TenantMigrator

extension TenantMigratorService {
    /// Retries the tenants the boot pass left behind, each when its backoff says, until a graceful
    /// shutdown or cancellation. Sleeps (on ``alarm``) while nothing is due.
    func retryUntilShutdown() async {
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
    func retryPass(_ due: [String: Status]) async {
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
