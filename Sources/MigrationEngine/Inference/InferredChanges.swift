import EntityModel
import Foundation
import LibPQ
import TypedSQL

/// The in-place changes that take a tenant's schema from one model version to another, inferred
/// from the model difference by Core Data's lightweight rules carried over to PostgreSQL.
///
/// See docs/Migrations.md for the rules. Anything outside them makes ``infer(from:to:)`` throw
/// ``PlanningError/stepNotPossible(from:to:reasons:)``: that step needs a mapping model.
public struct InferredChanges: Sendable {
    public let source: ModelVersion
    public let destination: ModelVersion
    let operations: [SchemaOperation]
    /// How many of ``operations`` change only the schema before any data moves (a step's
    /// `willMigrate` hook runs after them).
    let schemaOperationCount: Int
    /// How many operations after those move data; the rest close the step (drops, constraints).
    let dataOperationCount: Int
    /// Where every source column, link storage and row set goes.
    public let account: StepAccount

    /// What the step destroys (from the account).
    public var destructiveChanges: [DestructiveChange] { account.destructiveChanges }

    /// Infers the step across one adjacent pair. Renames are read from the newer version's
    /// renamingIdentifiers.
    public static func infer(_ pair: VersionPair) throws -> InferredChanges {
        try infer(from: pair.source, to: pair.destination, correspondence: .adjacent(pair), restoresFromArchive: pair.direction == .down)
    }

    /// Infers the step between two adjacent versions: up when `ascending` (the source is the older
    /// one), down otherwise.
    @available(*, deprecated, message: "use infer(_:) with a VersionPair from ModelFamily.path(from:to:)")
    public static func infer(from source: ModelVersion, to destination: ModelVersion, ascending: Bool) throws -> InferredChanges {
        try infer(VersionPair(source: source, destination: destination, direction: ascending ? .up : .down))
    }

    /// - Parameter restoresFromArchive: a way down (``SchemaDiffer/restoresFromArchive``).
    static func infer(from source: ModelVersion, to destination: ModelVersion, correspondence: Correspondence,
                      narrowingDeclaredBySteps: Bool = false, restoresFromArchive: Bool = false) throws -> InferredChanges {
        var differ = SchemaDiffer(source: source, destination: destination, correspondence: correspondence)
        differ.narrowingDeclaredBySteps = narrowingDeclaredBySteps
        differ.restoresFromArchive = restoresFromArchive
        try differ.run()
        var account = differ.account
        account.names = differ.archiveNames
        return InferredChanges(source: source, destination: destination, operations: differ.orderedOperations,
                               schemaOperationCount: differ.operationsAroundData.before.count,
                               dataOperationCount: differ.operationsAroundData.data.count, account: account)
    }

    /// The same change set for a run of adjacent versions, diffed once from the first to the last,
    /// following renames through every version in between. Call it only once every adjacent step
    /// has been inferred on its own: a narrowing is then accepted because its own pair declared it.
    static func fuse(_ path: VersionPath) throws -> InferredChanges {
        let correspondence = path.pairs.dropFirst().reduce(Correspondence.adjacent(path.pairs[0])) { $0.then(.adjacent($1)) }
        return try infer(from: path.source, to: path.destination, correspondence: correspondence, narrowingDeclaredBySteps: true,
                         restoresFromArchive: path.direction == .down)
    }

    /// Whether running this fused change set is equivalent to running `steps` one by one: true when
    /// no column's data is transformed (backfilled, cast, moved) by more than one of them, so the
    /// order of those transformations cannot matter.
    func isEquivalentFusion(of steps: [InferredChanges]) -> Bool {
        var touched: [String: Int] = [:]
        for step in steps {
            for target in Set(step.operations.compactMap(\.dataTarget)) { touched[target, default: 0] += 1 }
        }
        return touched.values.allSatisfy { $0 <= 1 }
    }

    /// True when the schemas are already the same.
    public var isEmpty: Bool { operations.isEmpty }

    /// The SQL of this step for `schema`, in order.
    public func statements(inSchema schema: String, quoting: some SQLQuoting = .postgreSQL) -> [String] {
        operations.flatMap(\.statements).map { $0.text(schema: schema, quoting: quoting) }
    }
}

extension SchemaOperation {
    /// The table (or table.column) whose rows this operation transforms, if any.
    var dataTarget: String? {
        switch self {
        case let .backfill(table, column, _, _), let .alterType(table, column, _): return table + "." + column
        case let .moveLinks(move):
            switch move.to {
            case let .foreignKey(table, column): return table + "." + column
            case let .joinTable(table, _, _): return table
            }
        case let .moveRows(move): return move.toTable
        case let .renameDiscriminatorValue(table, _, _): return table + ".entity"
        default: return nil
        }
    }
}
