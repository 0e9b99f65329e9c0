import EntityModel
import Foundation
import LibPQ
import TypedSQL

/// The ordered, compiled steps that take a tenant from one version to another. Planning touches no
/// database; a plan that exists can run, and renders its SQL without a connection.
public struct MigrationPlan: Sendable {
    public let family: String
    /// The versions walked, first to last, and the direction.
    public let path: VersionPath
    /// The steps, after fusion of consecutive inferred steps.
    public let steps: [MigrationStep]

    public var source: ModelVersion { path.source }
    public var destination: ModelVersion { path.destination }
    public var direction: MigrationDirection { path.direction }

    /// True when the tenant is already at the destination.
    public var isEmpty: Bool { steps.isEmpty }

    /// Every change that drops data whatever the tenant holds, over all steps: running the plan
    /// needs consent up front (`--allow-destructive`).
    public var destructiveChanges: [DestructiveChange] { steps.flatMap(\.destructiveChanges) }

    /// Losses that depend on the tenant's data (rows a predicate selects), over all steps: each
    /// step counts them when it runs and fails without consent if there are any.
    public var dataDependentLosses: [DestructiveChange] { steps.flatMap(\.account.dataDependentLosses) }

    /// The exact SQL of every step for `schema`, for `plan`.
    public func describe(inSchema schema: String, quoting: some SQLQuoting = .postgreSQL) -> [(step: MigrationStep, statements: [String])] {
        steps.map { ($0, $0.describe(inSchema: schema, quoting: quoting)) }
    }

    /// Runs every step, in order, inside the caller's transaction, with a ``StepExecutor``.
    /// Without `allowDestructive`, a data-dependent loss that finds rows fails the step
    /// (``UnconsentedLoss``). With `archives` (the default), what a step destroys goes to the
    /// tenant's archive first, and a step that reverses an earlier one restores it.
    public func run(inSchema schema: String, on connection: Connection, allowDestructive: Bool = false, archives: Bool = true,
                    memory: RunMemory? = nil) throws -> StepStatistics {
        var executor = StepExecutor(schema: schema, connection: connection, options: .init(allowDestructive: allowDestructive, archives: archives))
        executor.memory = memory
        return try steps.reduce(StepStatistics()) { total, step in total + (try executor.run(step)) }
    }
}
