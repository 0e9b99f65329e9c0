import LibPQ

/// How online migrations run (part of ``MigrationSettings``): batch sizes, when catch-up is close
/// enough to cut over, and a checkpoint called at every phase.
public struct OnlineSettings: Sendable {
    /// Rows per copy batch; each batch is a transaction of its own that takes no lock the app waits on.
    public var batchRows = 20_000 {
        didSet { batchRows = max(1, batchRows) }
    }
    /// Catch-up rounds go on until one finds at most this many changed rows; the rest is applied
    /// during the cutover, while writes wait.
    public var cutoverChanges = 500
    /// Catch-up rounds before the cutover at most, whatever is left (an app that writes faster
    /// than catch-up keeps up with still gets its cutover; writes then wait a little longer).
    public var maxRounds = 20 {
        didSet { maxRounds = max(1, maxRounds) }
    }
    /// On Citus, how long the change capture's lease lasts without a renewal (docs/Citus.md): the
    /// run renews it every third of this from a session of its own, and the capture of a run that
    /// died stops logging once it lapsed.
    public var citusLeaseDuration: Duration = .seconds(60)
    /// Called at every phase of every online migration, on the runner's thread, with what it did
    /// so far. For progress displays, and for tests that stop a run at a chosen moment: a
    /// checkpoint that throws fails the run there, as a crash would.
    public var checkpoint: (@Sendable (OnlineCheckpoint) throws -> Void)?

    public init() {}
}

/// Where an online migration stands when it calls ``OnlineSettings/checkpoint``.
public struct OnlineCheckpoint: Sendable {
    public var tenant: TenantName
    public var phase: OnlinePhase
    /// What the run did so far.
    public var progress: OnlineProgress
    /// The server process of the runner's connection (for `pg_terminate_backend`).
    public var backendPID: Int32
}

/// The phases of an online migration, in order.
public enum OnlinePhase: String, Sendable, Codable, Hashable, CaseIterable {
    /// Change capture installed on the live tables; nothing copied yet.
    case prepared
    /// After each copy batch.
    case copying
    /// The steps ran on the shadow.
    case built
    /// After each catch-up round.
    case catchingUp = "catching-up"
    /// In the cutover transaction: the live tables are locked against writes and the last changes applied.
    case cutoverLocked = "cutover-locked"
    /// In the cutover transaction, before its commit: the tables are swapped and the version recorded.
    case cutoverSwapped = "cutover-swapped"
    /// Committed: the tenant is at the new version.
    case done
}
