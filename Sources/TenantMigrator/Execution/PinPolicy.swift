/// What a migration does with a pinned tenant (see ``TenantRecord/pinnedVersion``).
///
/// A successful rollback pins the tenant at the version it reached (reason `rolled back`), so that
/// the next `migrateIfNeeded` or deploy does not move it forward again. Fleet runs and
/// `migrateIfNeeded` ``respect`` pins; a migration of one named tenant ``override``s them.
public enum PinPolicy: Sendable, Hashable {
    /// Leave a pinned tenant where it is: the outcome is ``TenantMigrationResult/Outcome/pinned``,
    /// nothing runs and nothing is written. A tenant already at the target is reported as such.
    case respect
    /// Move a pinned tenant like any other and clear its pin (a rollback pins it again, at the
    /// version it reached).
    case override
    /// Move the tenant to the target like ``override``, then pin it there with `reason`; a tenant
    /// already at the target is pinned where it is.
    case pin(reason: String?)
}
