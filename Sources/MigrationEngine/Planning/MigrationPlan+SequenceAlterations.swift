import EntityModel

extension MigrationPlan {
    /// What the plan's steps change in place in a sequence that a table's column draws from: a
    /// key's generation (`serial` ↔ identity, `BY DEFAULT` ↔ `ALWAYS`), a key sequence's options,
    /// or the options of a model sequence (`sequences:`) that a default draws from; one sentence
    /// each, naming the step and the column (`step v1 → v2: inferred changes key item.id from
    /// serial to byDefault`).
    ///
    /// Citus refuses each of these on a distributed table (`ALTER TABLE … ADD|DROP|SET GENERATED`,
    /// `… SET START WITH`, `ALTER SEQUENCE` of a sequence its tables use: 0A000), so the migrator
    /// refuses such a plan there before it runs (``ServerCapabilities/altersColumnSequencesInPlace``).
    public var inPlaceSequenceAlterations: [String] {
        steps.flatMap { step -> [String] in
            let drawnFrom = Dictionary(step.source.relationalSchema().tables.flatMap { table in
                table.columns.compactMap { column in column.defaultValue?.sequenceName.map { ($0, "\(table.name).\(column.name)") } }
            }, uniquingKeysWith: { first, _ in first })
            return step.program.operations.compactMap { operation -> String? in
                guard case let .sequenceChange(change) = operation, !change.statements.isEmpty else { return nil }
                let what: String
                switch change {
                case let .keyGeneration(table, from, to, _):
                    what = "changes key \(table).\(SQLName.primaryKeyColumn) from \(from.rawValue) to \(to.rawValue)"
                case let .alterKey(table, _, _, _):
                    what = "changes the options of the sequence of key \(table).\(SQLName.primaryKeyColumn)"
                case let .alter(_, sequence):
                    guard let column = drawnFrom[sequence.name] else { return nil }
                    what = "changes the options of sequence \(sequence.name), which \(column) draws from"
                case .create, .drop, .rename:
                    return nil
                }
                return "step \(step) \(what)"
            }
        }
    }
}
