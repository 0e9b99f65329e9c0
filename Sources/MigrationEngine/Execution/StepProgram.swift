import EntityModel
import TypedSQL

/// What a compiled step runs, in order, as typed ``SQL`` for any tenant: built once with the step
/// (``MigrationStep``), run by the ``StepExecutor``, listed by `plan`.
///
/// The stages follow Core Data's migration manager, with the schema changes of the in-place step
/// around them:
/// 1. ``schemaChanges``: renames, new tables and columns (the `willMigrate` hook runs after them);
/// 2. ``dataMoves``: backfills, type changes, links and rows moved by the inferred rules;
/// 3. a mapped step's ``mappings``: every mapping creates its instances, then every mapping sets
///    its relationships (declarative SQL, then the mapping's Swift policy);
/// 4. ``closing``: deletions, drops, NOT NULL, constraints and indexes: Core Data's validation.
struct StepProgram: Sendable {
    /// One statement, and whether it reads or writes rows (rather than only the catalog).
    struct Statement: Sendable {
        let sql: SQL
        let movesData: Bool
        /// The operation it comes from, for naming the constraint and row a violation breaks.
        let operation: SchemaOperation
    }

    /// One entity mapping, compiled.
    struct Mapping: Sendable {
        /// How destination ids relate to source ids.
        enum IDs: Sendable {
            /// Rows stay in their table: each source row is its own destination row.
            case inPlace
            /// Destination id = source id + the offset in this transaction-local setting, read
            /// once the instances exist (relationship mappings and policies follow it).
            case offset(SQL)
            /// The mapping's policy makes the rows and records which source row made which.
            case madeByPolicy
            /// One row per distinct key of the source rows (`distinct:`), from each key's first row:
            /// its id is the offset plus the key's rank (``DistinctRows``).
            case perKey(DistinctRows)
        }

        let mapping: EntityMapping
        /// Pass 1: the declarative rows (or in-place values).
        let createInstances: [SQL]
        /// Pass 2: the declarative relationship mappings.
        let createRelationships: [SQL]
        let ids: IDs
    }

    /// What only a mapped step has: the model for its policies, the compiler that resolves source
    /// tables for them, and the losses to count before anything is destroyed.
    struct Mapped: Sendable {
        let model: MappingModel
        let compiler: MappingCompiler
        let dataDependentLosses: [DestructiveChange]
    }

    let schemaChanges: [Statement]
    let dataMoves: [Statement]
    let closing: [Statement]
    /// Whether the closing statements run one by one, each in a savepoint, so that a constraint
    /// violation is reported with the entity, a row and the constraint (mapped steps, whose data
    /// comes from expressions and policies). An inferred step sends them in one pipeline.
    let validatesClosing: Bool
    var mappings: [Mapping] = []
    var mapped: Mapped?

    /// What goes once every mapping set its relationships: the distinct mappings' keys tables.
    var mappingsTearDown: [SQL] {
        mappings.compactMap { if case let .perKey(rows) = $0.ids { rows.tearDown } else { nil } }
    }

    /// The schema operations of the in-place step, in the order they run (the mappings run between
    /// the data moves and the closing ones).
    var operations: [SchemaOperation] {
        var operations: [SchemaOperation] = []
        for statement in schemaChanges + dataMoves + closing where operations.last != statement.operation {
            operations.append(statement.operation)
        }
        return operations
    }

    /// The tables the step creates.
    var createdTables: Set<String> {
        Set(operations.compactMap { operation -> String? in
            if case let .createTable(table) = operation { table.name } else { nil }
        })
    }

    /// Every statement in the order it runs; a policy's stages as comments.
    var listing: [SQL] {
        var lines = (schemaChanges + dataMoves).map(\.sql)
        for compiled in mappings {
            let mapping = compiled.mapping
            lines.append("-- mapping \(comment: mapping.name): \(comment: mapping.source) → \(comment: mapping.destination)\(comment: mapping.filter.map { " where \($0)" } ?? "")"
                + "\(comment: mapping.distinct.map { ", one per distinct \($0.key) (first row by \($0.orderBy ?? "source.id"))" } ?? "")")
            lines += compiled.createInstances
            if let policy = mapping.policy { lines.append("-- policy \(comment: policy): createDestinationInstances for each source row (streamed), rows written with COPY") }
        }
        for compiled in mappings {
            lines += compiled.createRelationships
            if let policy = compiled.mapping.policy { lines.append("-- policy \(comment: policy): createRelationships for each source row (skipped if it has none)") }
        }
        lines += mappingsTearDown
        lines += closing.map(\.sql)
        lines += mappings.compactMap { $0.mapping.policy.map { "-- policy \(comment: $0): validate, end" } }
        return lines
    }
}

// In an extension, so that the struct keeps Swift's memberwise initializer, which builds a mapped
// step's program (MappingModel's compile) and a program with adopted names (AdoptedNames).
extension StepProgram {
    /// An inferred step's program.
    init(inferred changes: InferredChanges) {
        let operations = changes.operations
        let dataEnd = changes.schemaOperationCount + changes.dataOperationCount
        self.init(schemaChanges: operations[..<changes.schemaOperationCount].statements,
                  dataMoves: operations[changes.schemaOperationCount..<dataEnd].statements,
                  closing: operations[dataEnd...].statements, validatesClosing: false)
    }
}

extension Collection where Element == SchemaOperation {
    /// The operations' statements, in order.
    var statements: [StepProgram.Statement] {
        flatMap { operation in operation.statements.map { StepProgram.Statement(sql: $0, movesData: operation.movesData, operation: operation) } }
    }
}
