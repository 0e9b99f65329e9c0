import EntityModel
import Foundation
import LibPQ

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
    /// Where every source column, link storage and row set goes.
    public let account: StepAccount

    /// What the step destroys (from the account).
    public var destructiveChanges: [DestructiveChange] { account.destructiveChanges }

    /// Infers the step between two adjacent versions: up when `ascending` (the source is the older
    /// one), down otherwise. Renames are read from the newer version's renamingIdentifiers.
    public static func infer(from source: ModelVersion, to destination: ModelVersion, ascending: Bool) throws -> InferredChanges {
        try infer(from: source, to: destination, correspondence: .adjacent(from: source, to: destination, sourceIsOlder: ascending))
    }

    static func infer(from source: ModelVersion, to destination: ModelVersion, correspondence: Correspondence,
                      narrowingDeclaredBySteps: Bool = false) throws -> InferredChanges {
        var differ = SchemaDiffer(source: source, destination: destination, correspondence: correspondence)
        differ.narrowingDeclaredBySteps = narrowingDeclaredBySteps
        try differ.run()
        var account = differ.account
        account.names = differ.archiveNames
        return InferredChanges(source: source, destination: destination, operations: differ.orderedOperations,
                               schemaOperationCount: differ.operationsAroundData.before.count, account: account)
    }

    /// The same change set for a run of adjacent versions, diffed once from the first to the last,
    /// following renames through every version in between. Call it only once every adjacent step
    /// has been inferred on its own: a narrowing is then accepted because its own pair declared it.
    static func fuse(_ versions: [ModelVersion], ascending: Bool) throws -> InferredChanges {
        var correspondence: Correspondence?
        for (from, to) in zip(versions, versions.dropFirst()) {
            let step = Correspondence.adjacent(from: from, to: to, sourceIsOlder: ascending)
            correspondence = correspondence.map { $0.then(step) } ?? step
        }
        return try infer(from: versions.first!, to: versions.last!, correspondence: correspondence!, narrowingDeclaredBySteps: true)
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

    /// The SQL of this step, in order.
    public func statements(inSchema schema: String, quoting: some SQLQuoting) -> [String] {
        operations.flatMap { $0.sql(inSchema: schema, quoting: quoting) }
    }

    /// Runs the step inside the caller's transaction, as one pipelined batch: one round trip
    /// however many statements. A failing statement aborts the batch and the transaction.
    public func run(inSchema schema: String, on connection: Connection) throws -> StepStatistics {
        try run(inSchema: schema, on: connection, afterSchemaChanges: nil)
    }

    /// Runs the step; with `afterSchemaChanges`, as two batches around it: the schema changes
    /// (renames, new tables and columns), then the closure, then the data moves and the rest.
    func run(inSchema schema: String, on connection: Connection, afterSchemaChanges: (() throws -> Void)?) throws -> StepStatistics {
        var statistics = StepStatistics()
        func batch(_ operations: ArraySlice<SchemaOperation>) throws {
            var statements: [Statement] = []
            var movesData: [Bool] = []
            for operation in operations {
                for sql in operation.sql(inSchema: schema, quoting: connection) {
                    statements.append(Statement(sql))
                    movesData.append(operation.movesData)
                }
            }
            guard !statements.isEmpty else { return }
            let results = try connection.pipeline(statements)
            statistics.statements += statements.count
            for (result, moved) in zip(results, movesData) where moved { statistics.rowsAffected += result.affectedRows }
        }
        guard let afterSchemaChanges else {
            try batch(operations[...])
            return statistics
        }
        try batch(operations[..<schemaOperationCount])
        try afterSchemaChanges()
        try batch(operations[schemaOperationCount...])
        return statistics
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
