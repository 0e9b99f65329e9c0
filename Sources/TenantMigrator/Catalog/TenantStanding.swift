/// Where a tenant stands with respect to a target version: the one answer the fleet, the boot
/// service and `migrateIfNeeded` act on.
public enum TenantStanding: Sendable, Hashable {
    /// At the target: nothing to do.
    case current
    /// Elsewhere, but pinned (``TenantRecord/pinnedVersion``): left where it is unless a
    /// migration names it.
    case pinned(at: String)
    /// Elsewhere, free to move.
    case elsewhere(at: String)
}

extension TenantRecord {
    /// Where this tenant stands with respect to `target`.
    public func standing(toward target: String) -> TenantStanding {
        if version == target { return .current }
        return isPinned ? .pinned(at: version) : .elsewhere(at: version)
    }
}
