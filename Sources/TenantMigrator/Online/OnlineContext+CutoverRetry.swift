import LibPQ
import MigrationEngine

extension OnlineContext {
    /// Runs an online cutover, `attempt`, as one transaction, retried as a whole when it loses a
    /// lock race (55P03, 40P01) up to the settings' attempts, as offline attempts are: each lost
    /// attempt is rolled back, counted in the metrics and the trace as a lock retry, logged with
    /// its cause, and followed by the backoff and `beforeRetry` (what the layout does between two
    /// attempts: a catch-up round, a renewal of the lease), then the next attempt.
    ///
    /// Used by ``OnlineCutover`` and ``InSchemaOnlineRun`` alike.
    func retryingCutover<T>(
        beforeRetry: (description: String, run: () throws -> Void),
        _ attempt: (_ number: Int, _ phases: inout CutoverPhases) throws -> T
    ) throws -> T {
        var number = 0
        while true {
            number += 1
            progress.cutoverAttempts = number
            do {
                var phases = CutoverPhases()
                let result = try connection.transaction { _ in try attempt(number, &phases) }
                phases.mark("committed")
                log("cutover attempt \(number) committed: \(phases)")
                return result
            } catch where TenantExecutor.isRetryable(error) && number < settings.maxAttempts {
                let delay = run.executor.backoff(afterAttempt: number)
                let timedOut = SQLState.lockNotAvailable ~= error
                run.executor.observeLockRetry(after: number, deadlock: !timedOut, on: run.span)
                let cause = timedOut ? "waited longer than lock_timeout for a lock (55P03)" : "was chosen as a deadlock victim (40P01)"
                log("cutover attempt \(number) of \(settings.maxAttempts) \(cause); rolled back, \(beforeRetry.description) and retrying in \(Int(delay * 1000)) ms: \(error)",
                    level: .warning)
                try TenantExecutor.sleep(delay)
                try beforeRetry.run()
            }
        }
    }
}
