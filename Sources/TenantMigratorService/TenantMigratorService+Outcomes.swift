import TenantMigrator

extension TenantMigratorService.Status {
    /// SQLSTATEs of failures that another attempt may well not meet: deadlocks and serialization
    /// failures, a server shutting down, full or out of resources. Lock timeouts (55P03) are
    /// ``waitingForLock``; connection failures (class 08) are matched by class.
    static let transientSQLStates: Set<String> = ["40P01", "40001", "57P01", "57P02", "57P03", "53000", "53100", "53200", "53300", "53400"]

    /// The status a fleet report's entry leaves its tenant in; nil when the tenant is not in the
    /// catalog (any more): the fleet run reports it failed with no version.
    init?(_ entry: FleetReport.Entry) {
        switch entry.outcome {
        case .migrated, .skipped:
            self = .ready
        case .notStarted:
            self = .pending
        case .pinned:
            self = .pinned(version: entry.fromVersion)
        case .failed:
            guard !entry.fromVersion.isEmpty else { return nil }
            if entry.sqlState == "55P03" {
                self = .waitingForLock
                return
            }
            let transient = entry.sqlState.map { Self.transientSQLStates.contains($0) || $0.hasPrefix("08") } ?? false
            self = .failed(TenantMigratorService.Failure(
                message: entry.error ?? "failed", sqlState: entry.sqlState, isDeterministic: !transient
            ))
        }
    }

    /// Whether the background retries take this tenant on the backoff schedule (rather than the
    /// deterministic-failure interval, or not at all).
    var retriesWithBackoff: Bool {
        switch self {
        case .pending, .waitingForLock: return true
        case let .failed(failure): return !failure.isDeterministic
        case .ready, .migrating, .unknown, .pinned: return false
        }
    }
}
