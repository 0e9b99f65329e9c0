import LibPQ
import TenantMigrator
import TenantMigratorTestSupport

extension BackgroundWorkload {
    /// An online run's checkpoint that makes the app's changes meet each phase once: at the first
    /// checkpoint of the copy and of the built shadow, `operations` changes while the workload is
    /// paused, then it goes on; at the first catch-up round, the last `operations` (what changes
    /// after that is caught up by the cutover's own round). Each phase met goes into `seen`.
    func changingInEachPhase(_ operations: Int, seen: Locked<Set<OnlinePhase>>) -> @Sendable (OnlineCheckpoint) throws -> Void {
        { [self] checkpoint in
            guard seen.withLock({ $0.insert(checkpoint.phase).inserted }) else { return }
            switch checkpoint.phase {
            case .copying, .built:
                stop()
                try drive(operations)
                resume()
            case .catchingUp:
                stop()
                try drive(operations)
            default:
                break
            }
        }
    }
}
