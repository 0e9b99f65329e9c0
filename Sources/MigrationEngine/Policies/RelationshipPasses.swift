import LibPQ

/// What a fleet run learned of its policies' relationship passes: which policies keep the default
/// ``MigrationPolicy/createRelationships(for:in:)``, which does nothing.
///
/// Whether a policy has a relationship pass of its own is a property of its type, not of a
/// tenant's data, so the first tenant that runs a policy finds out (by calling it on one source
/// row, as every tenant does without this memo) and the others skip the pass's cursor: three
/// statements per policy and tenant. ``MigrationPolicy/endRelationshipCreation(_:)`` still runs.
/// Only the default implementation marks a policy idle: a policy that implements the pass, even
/// one that does nothing for some rows, is never skipped. (A policy that forwards to another's
/// default should implement its own pass, as ``MigrationPolicy`` asks.)
public final class RelationshipPasses: Sendable {
    /// Registered names of the policies found to keep the default pass.
    private let idle = Locked<Set<String>>([])

    public init() {}

    /// Whether `policy` (a registered name) is known to keep the default relationship pass.
    func isIdle(_ policy: String) -> Bool {
        idle.withLock { $0.contains(policy) }
    }

    /// Notes that `policy` keeps the default relationship pass.
    func noteIdle(_ policy: String) {
        idle.withLock { _ = $0.insert(policy) }
    }
}
