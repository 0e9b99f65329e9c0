import EntityModel

/// A plan as an online migration runs it: each step's ``OnlineStepMode``, the steps that run on
/// the shadow and are caught up while the app writes, the steps that run while writes wait, and
/// the ``OnlineLineage`` that catch-up follows.
///
/// The whole plan swaps in at once, so the app sees the old version or the new one, never one in
/// between. The steps before the first ``OnlineStepMode/Kind/writesWait`` step are caught up; that
/// step and the ones after it run during the cutover, while the live tables are locked against
/// writes (reads go on).
public struct OnlinePlan: Sendable {
    public let plan: MigrationPlan
    /// One per step of the plan.
    public let modes: [OnlineStepMode]
    /// The steps run on the shadow and caught up.
    public let caughtUp: [MigrationStep]
    /// The steps run on the shadow while writes wait (from the first that cannot be caught up).
    public let whileWritesWait: [MigrationStep]
    /// Where the caught-up steps' destination rows come from.
    public let lineage: OnlineLineage

    /// The distinct mappings of the last caught-up step, which catch-up follows by key.
    public let distinct: [OnlineDistinct]

    public init(_ plan: MigrationPlan) {
        self.plan = plan
        var modes = plan.steps.map(\.onlineMode)
        var cut = modes.firstIndex { $0.kind == .writesWait } ?? plan.steps.count
        // A distinct mapping is followed only in the last caught-up step, reading live rows.
        for index in 0..<cut where plan.steps[index].makesRowsPerKey {
            let (_, refusal) = Self.distinctMappings(of: Array(plan.steps[...index]), source: plan.source)
            if let refusal {
                modes[index] = OnlineStepMode(.writesWait, refusal)
                cut = index
                break
            }
            if index < cut - 1 {
                modes[index] = OnlineStepMode(.writesWait, "its distinct mappings are followed only in the last step caught up, and steps follow it")
                cut = index
                break
            }
        }
        self.modes = modes
        caughtUp = Array(plan.steps[..<cut])
        whileWritesWait = Array(plan.steps[cut...])
        lineage = OnlineLineage(steps: caughtUp, source: plan.source)
        distinct = Self.distinctMappings(of: caughtUp, source: plan.source).mappings
    }

    /// How the plan runs as a whole: the most the app notices over its steps.
    public var kind: OnlineStepMode.Kind { modes.map(\.kind).max() ?? .catalogOnly }

    /// The version the caught-up steps reach (the shadow's version when the cutover begins).
    public var caughtUpVersion: ModelVersion { caughtUp.last?.destination ?? plan.source }

    /// One line per step for `plan` and the logs: `v2 → v3: shadow (…)`.
    public var summary: [String] {
        zip(plan.steps, modes).map { step, mode in "\(step.source.name) → \(step.destination.name): \(mode)" }
    }
}
