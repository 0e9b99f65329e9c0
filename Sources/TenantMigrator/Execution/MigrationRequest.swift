import EntityModel

/// What a migration of one tenant (or of each tenant of a fleet) is asked to do: where to, which
/// way, with what consent, for real or on trial, and what to do with a pinned tenant.
///
/// The facade, the command line, the fleet and the service all describe a migration with this one
/// value, and the runner takes it as it is; how the migration runs (lock timeout, retries, archive,
/// observability) is ``MigrationSettings``.
///
/// ```swift
/// let request = MigrationRequest.rollback(to: "v2", allowDestructive: true)
/// ```
public struct MigrationRequest: Sendable, Hashable {
    /// Which ways the tenant may move.
    public enum Operation: String, Sendable, Hashable, Codable {
        /// Forward only (`migrate`): a target older than the tenant is refused.
        case migrate
        /// Backward only (`rollback`): a target newer than the tenant is refused.
        case rollback
        /// Either way (`pin(tenant:at:)`).
        case move
        /// Nowhere (`pin(tenant:)` where the tenant is): a tenant that moved since is refused.
        case stay

        /// Whether a path in `direction` is allowed (staying put always is).
        public func allows(_ direction: MigrationDirection) -> Bool {
            switch (self, direction) {
            case (.move, _), (_, .none), (.migrate, .up), (.rollback, .down): true
            default: false
            }
        }

        /// The one direction allowed, for messages; nil for ``move``.
        public var direction: MigrationDirection? {
            switch self {
            case .migrate: .up
            case .rollback: .down
            case .stay: MigrationDirection.none
            case .move: nil
            }
        }
    }

    public var operation: Operation
    /// The version to reach; nil for the family's latest.
    public var target: String?
    /// Consent to lose what the plan or the tenant's data says would be lost (`--allow-destructive`).
    public var allowDestructive: Bool
    /// Keep the result, or run it and roll it back (dry run, rehearsal).
    public var mode: MigrationRunMode
    /// What to do with a pinned tenant.
    public var pins: PinPolicy
    /// Whether the tenant migrates online, built in a shadow schema while the app goes on
    /// (docs/Online.md); offline by default. Trials (``MigrationRunMode/isTrial``) run offline.
    public var online: OnlineMode

    public init(
        _ operation: Operation, to target: String? = nil, allowDestructive: Bool = false, mode: MigrationRunMode = .apply,
        pins: PinPolicy = .override, online: OnlineMode = .off
    ) {
        self.operation = operation
        self.target = target
        self.allowDestructive = allowDestructive
        self.mode = mode
        self.pins = pins
        self.online = online
    }

    /// Forward to `target` (the latest when nil).
    public static func migrate(
        to target: String? = nil, allowDestructive: Bool = false, mode: MigrationRunMode = .apply, pins: PinPolicy = .override,
        online: OnlineMode = .off
    ) -> MigrationRequest {
        MigrationRequest(.migrate, to: target, allowDestructive: allowDestructive, mode: mode, pins: pins, online: online)
    }

    /// Back to `target`.
    public static func rollback(
        to target: String, allowDestructive: Bool = false, mode: MigrationRunMode = .apply, pins: PinPolicy = .override,
        online: OnlineMode = .off
    ) -> MigrationRequest {
        MigrationRequest(.rollback, to: target, allowDestructive: allowDestructive, mode: mode, pins: pins, online: online)
    }
}
