import MigrationEngine

/// What an online cutover does alike on both layouts (``OnlineCutover`` on plain PostgreSQL,
/// ``InSchemaOnlineRun`` on Citus), between the layout's own locking and swapping.
extension OnlineContext {
    /// Under the cutover's write lock: the tenant's catalog row again (the tenant must not have
    /// moved meanwhile), the last changes caught up, then the steps that could not be
    /// (``OnlinePlan/whileWritesWait``) run on the shadow.
    ///
    /// - Returns: the statistics of every step run on the shadow.
    func catchUpLast(phases: inout CutoverPhases) throws -> StepStatistics {
        let current = try run.catalog.requireTenant(run.tenant, on: connection, forUpdate: true)
        guard current.version == record.version else {
            throw OnlineRefusal(tenant: run.tenant, reason: "the tenant moved to \(current.version) meanwhile")
        }
        phases.mark("rechecked")
        try round()
        phases.mark("last changes caught up")
        try checkpoint(.cutoverLocked)
        let shadowStatistics = try runOnShadow(plan.whileWritesWait, whileWritesWait: true, on: connection, adding: statistics)
        phases.mark("writes-wait steps")
        return shadowStatistics
    }

    /// Once the shadow is swapped in: the tenant's new version, its history row and its pins are
    /// recorded as offline (``TenantRun/recordMove(_:for:statistics:attempt:extra:)``), with the
    /// run's counts, and how long writes and reads have waited (since `writesBlocked` and
    /// `readsBlocked`) goes to the progress and the metrics.
    func recordCutover(
        attempt: Int, statistics: StepStatistics, writesBlocked: ContinuousClock.Instant, readsBlocked: ContinuousClock.Instant,
        phases: inout CutoverPhases
    ) throws {
        try run.recordMove(plan.plan, for: record, statistics: statistics, attempt: attempt, extra: [
            "online": 1, "rowsCopied": Double(progress.rowsCopied), "changesCaughtUp": Double(progress.changesCaughtUp),
            "rounds": Double(progress.rounds),
        ])
        try checkpoint(.cutoverSwapped)
        phases.mark("recorded")
        progress.writesBlockedMilliseconds = (ContinuousClock.now - writesBlocked).inMilliseconds
        progress.readsBlockedMilliseconds = (ContinuousClock.now - readsBlocked).inMilliseconds
        settings.observability.recordOnlineCutover(
            writesBlocked: ContinuousClock.now - writesBlocked, readsBlocked: ContinuousClock.now - readsBlocked, family: family
        )
    }
}
