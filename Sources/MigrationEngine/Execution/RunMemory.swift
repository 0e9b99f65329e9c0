import EntityModel
import LibPQ

/// What one run learns as its tenants run the same compiled steps, kept apart from the plan so
/// that a compiled plan (``MigrationPlan``, its steps' programs) stays a value: it holds nothing a
/// run changes, and can be printed, compared and used by another run as it is.
///
/// A fleet run makes one and hands it to each tenant's ``StepExecutor``; its tenants run
/// concurrently, so everything in it is guarded by a lock. A run without one learns nothing
/// across tenants: each step works everything out afresh. Nothing in it is process-wide.
public final class RunMemory: Sendable {
    /// Which policies keep the default relationship pass (``RelationshipPasses``).
    public let relationshipPasses = RelationshipPasses()
    private let steps = Locked<[StepKey: StepMemory]>([:])

    public init() {}

    /// What the run learned of `step` (the same for every tenant that runs it).
    func memory(of step: MigrationStep) -> StepMemory {
        let key = StepKey(step)
        return steps.withLock { steps in
            if let known = steps[key] { return known }
            let made = StepMemory()
            steps[key] = made
            return made
        }
    }

    /// How many steps the run learned something of.
    public var stepCount: Int { steps.withLock(\.count) }

    /// A step of the run: its versions, direction and mapping model. A run plans each pair of
    /// versions once, so within a run these name one compiled step.
    private struct StepKey: Hashable, Sendable {
        let versions: [String]
        let direction: MigrationDirection
        let mappingModel: String?

        init(_ step: MigrationStep) {
            versions = step.versions.map(\.name)
            direction = step.direction
            mappingModel = step.mappingModel?.file
        }
    }
}

/// What a run learned of one compiled step, shared by the tenants that run it.
final class StepMemory: Sendable {
    /// Its policies' source queries, worked out by the first tenant that runs the step.
    let sourceQueries = SourceQueries()
    /// The new tables its policies took ids from, as the tenants that ran the step found them.
    let ownTablesTaken = OwnTablesTaken()
    /// The tables whose way back's proofs PostgreSQL vouches for, asked by the first tenant.
    private let trust = Memo<Bool, WayBackTrust.Verdict>()
    /// Whether its mappings' expressions resolve to trusted objects only, asked by the first tenant.
    private let mappingTrust = Memo<Bool, Bool>()
    /// Its archive plans' copies' SQL (the same for each tenant but for the schema, filled in as
    /// it is sent), by the plan's ``ArchivePlan/copiesVariant`` and item.
    private let copies = Memo<CopyKey, SQL>()
    private let provedCopies = Memo<[String], [SQL]>()

    init() {}

    /// ``ArchivePlan/trustedProofs(on:)`` of the step's plan, asked once.
    func trustedProofs(of plan: ArchivePlan, on connection: Connection) throws -> WayBackTrust.Verdict {
        try trust.value(for: true) { try plan.trustedProofs(on: connection) }
    }

    /// ``MappingTrust/check(inSchema:on:)`` of the step's mappings, passed once (a refusal is
    /// asked again by the next tenant, and refuses it too).
    func requireTrustedMappings(_ mapped: StepProgram.Mapped, inSchema schema: String, on connection: Connection) throws {
        _ = try mappingTrust.value(for: true) {
            try MappingTrust(mapped).check(inSchema: schema, on: connection)
            return true
        }
    }

    /// ``ArchivePlan/copy(_:)``, made once per plan variant and item.
    func copy(_ item: ArchivePlan.Item, of plan: ArchivePlan) -> SQL {
        copies.value(for: CopyKey(variant: plan.copiesVariant, item: item)) { plan.copy(item) }
    }

    /// ``ArchivePlan/provedCopies``, made once per plan variant.
    func provedCopies(of plan: ArchivePlan) -> [SQL] {
        provedCopies.value(for: plan.copiesVariant) { plan.provedCopies }
    }

    private struct CopyKey: Hashable, Sendable {
        let variant: [String]
        let item: ArchivePlan.Item
    }
}
