import MigrationEngine

/// What an online migration of one tenant did: its mode, how far it got, and how long the app
/// waited. In the tenant's result (``TenantMigrationResult/online``), the fleet report and the
/// `--json` output.
public struct OnlineProgress: Sendable, Codable, Hashable {
    /// How the tenant ran: `catalog-only` (one short transaction), `shadow` (copied and caught
    /// up), `writes-wait` (copied while writes waited from some step on), or `offline` when
    /// `--online-above` found it small.
    public var mode: String
    /// Why that mode (the first step that decided it, or the tenant's size).
    public var reason: String
    /// The last phase reached.
    public var phase: OnlinePhase = .prepared
    /// The tenant's rows as estimated when choosing the mode, online or offline (`--online-above`
    /// only: without a threshold nothing is estimated).
    public var estimatedRows: Int?
    /// Rows copied into the shadow.
    public var rowsCopied = 0
    /// Changes the app made meanwhile that were caught up (change log entries).
    public var changesCaughtUp = 0
    /// Source rows migrated again for them.
    public var rowsMigratedAgain = 0
    /// Catch-up rounds, the cutover's last one included.
    public var rounds = 0
    /// Cutover transactions tried (more than one when a lock timed out).
    public var cutoverAttempts = 0
    /// How long the cutover held the live tables against writes, in ms (reads went on).
    public var writesBlockedMilliseconds: Double = 0
    /// How long it held them against reads too (the swap), in ms.
    public var readsBlockedMilliseconds: Double = 0

    public init(mode: String, reason: String) {
        self.mode = mode
        self.reason = reason
    }
}
