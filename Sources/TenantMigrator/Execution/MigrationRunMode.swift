/// Whether a migration keeps what it did.
///
/// Both trial modes run each tenant's real migration, with its locks, in its transaction, and then
/// roll that transaction back: nothing changes, the catalog and its history included, and nothing
/// is recorded when a tenant fails. They answer "what would happen" with the tenant's real data.
public enum MigrationRunMode: String, Sendable, Codable, Hashable {
    /// Migrate and commit.
    case apply
    /// Migrate, report what happened or what failed (constraint, row, SQLSTATE), roll back.
    case dryRun = "dry-run"
    /// Migrate to the target and back again, compare every table with how it was before, report
    /// the first difference, roll back. Proves that the way back restores the tenant's data.
    case rehearse

    /// Whether the transaction is rolled back at the end.
    public var isTrial: Bool { self != .apply }
}
