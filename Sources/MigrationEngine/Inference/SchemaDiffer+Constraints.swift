import EntityModel

extension SchemaDiffer {
    /// Keeps, renames, drops or adds the primary key, foreign keys, unique and check constraints and
    /// indexes of a matched table, comparing definitions in the destination's names.
    mutating func diffConstraints(_ oldTable: Table, _ newTable: Table) {
        let columns = columnMatch[oldTable.name] ?? [:]
        func translate(_ list: [String]) -> [String]? {
            let mapped = list.compactMap { columns[$0] }
            return mapped.count == list.count ? mapped : nil
        }
        let table = newTable.name
        let tables = tableMatch

        // (A key that is a unique index is renamed, kept or made as one of the indexes, below.)
        if oldTable.keyIsUniqueIndex == nil, newTable.keyIsUniqueIndex == nil,
           oldTable.primaryKey.name != newTable.primaryKey.name, translate(oldTable.primaryKey.columns) == newTable.primaryKey.columns {
            emit(.renameConstraints, .renameConstraint(table: table, from: oldTable.primaryKey.name, to: newTable.primaryKey.name, ownsIndex: true))
        }
        // A join table renamed with its entities may list its pair the other way round
        // (`e4_r18 (e4_id, e9_id)` becoming `e20_r17 (e20_id, e4_id)`): its key is made again in
        // the model's order, as a new tenant has it (`verify` would find it otherwise).
        if oldTable.keyIsUniqueIndex == nil, newTable.keyIsUniqueIndex == nil, let translated = translate(oldTable.primaryKey.columns),
           translated != newTable.primaryKey.columns, Set(translated) == Set(newTable.primaryKey.columns) {
            emit(.dropConstraints, .dropConstraint(table: oldTable.name, name: oldTable.primaryKey.name, ownsIndex: true))
            emit(.addConstraints, .addPrimaryKey(table: table, name: newTable.primaryKey.name, columns: newTable.primaryKey.columns, usingIndex: nil))
        }
        // A join table's key changed kind (`joinKey`): its rows stay (``keyChangedKind``).
        let keyIndex = keyChangedKind(oldTable, newTable, translate: translate)


        // (A key on the same columns and target with another rule replaces the old one: its rows held that one.)
        let replaces = { (new: ForeignKey) in
            oldTable.foreignKeys.contains { translate($0.columns) == new.columns && (tables[$0.referencedTable] ?? $0.referencedTable) == new.referencedTable }
        }
        matchConstraints(oldTable.foreignKeys, newTable.foreignKeys, oldTable: oldTable.name, newTable: table, name: \.name, ownsIndex: false,
                         add: { replaces($0) ? .replaceForeignKey(table: table, $0) : .addForeignKey(table: table, $0) }) { old, new in
            translate(old.columns) == new.columns && new.onDelete == old.onDelete && new.onUpdate == old.onUpdate && new.isDeferred == old.isDeferred
                && new.referencedTable == (tables[old.referencedTable] ?? old.referencedTable)
        }
        matchConstraints(oldTable.uniqueConstraints, newTable.uniqueConstraints, oldTable: oldTable.name, newTable: table, name: \.name,
                         ownsIndex: true, add: { .addUnique(table: table, $0) }) { old, new in translate(old.columns) == new.columns }
        matchConstraints(oldTable.checkConstraints, newTable.checkConstraints, oldTable: oldTable.name, newTable: table, name: \.name,
                         ownsIndex: false, add: { .addCheck(table: table, $0) }) { old, new in
            Self.translateCondition(old.condition, columns)?.normalized == new.condition.normalized
        }

        var keptIndexes: Set<String> = []
        for index in oldTable.indexes where index.name != keyIndex {
            // Kept when it is the same definition in the destination's column names (an index of
            // SQL keys is kept only where those read no renamed column: its text names them).
            let match = translate(index.columns).flatMap { mapped in
                var translated = index
                translated.columns = mapped
                return newTable.indexes.first {
                    !keptIndexes.contains($0.name) && $0.hasDefinition(of: translated) && (index.elements == nil || mapped == index.columns)
                }
            }
            if let match {
                keptIndexes.insert(match.name)
                if match.name != index.name { emit(.renameConstraints, .renameIndex(from: index.name, to: match.name)) }
            } else if translate(index.columns) != nil {
                emit(.dropConstraints, .dropIndex(name: index.name))
            }
        }
        for index in newTable.indexes where !keptIndexes.contains(index.name) {
            emit(.createIndexes, .createIndex(table: table, index))
        }
    }

    /// A key that becomes a `PRIMARY KEY` constraint where it was a unique index, or the other
    /// way (a join table's `joinKey`), on the same columns. The primary key is added on the unique
    /// index (`ADD CONSTRAINT … PRIMARY KEY USING INDEX`, catalog only: the index becomes the
    /// constraint's); a primary key that becomes a unique index is dropped, and the index made
    /// (below). Returns the old unique index the new primary key takes, which is neither kept nor dropped.
    private mutating func keyChangedKind(_ oldTable: Table, _ newTable: Table, translate: ([String]) -> [String]?) -> String? {
        switch (oldTable.keyIsUniqueIndex == true, newTable.keyIsUniqueIndex == true) {
        case (false, true):
            emit(.dropConstraints, .dropConstraint(table: oldTable.name, name: oldTable.primaryKey.name, ownsIndex: true))
            return nil
        case (true, false):
            let index = oldTable.indexes.first { $0.name == oldTable.primaryKey.name && $0.isUnique == true && $0.elements == nil && $0.predicate == nil }
            let usable = index.flatMap { translate($0.columns) } == newTable.primaryKey.columns
            emit(.addConstraints, .addPrimaryKey(table: newTable.name, name: newTable.primaryKey.name, columns: newTable.primaryKey.columns,
                                                 usingIndex: usable ? index?.name : nil))
            return usable ? index?.name : nil
        default:
            return nil
        }
    }

    /// Pairs each old constraint with the first new one that `matches` it (in the destination's
    /// names): a pair is kept (renamed where the names differ), an old one without a match is
    /// dropped, a new one without a match is added.
    private mutating func matchConstraints<Constraint>(
        _ old: [Constraint], _ new: [Constraint], oldTable: String, newTable: String, name: (Constraint) -> String, ownsIndex: Bool,
        add: (Constraint) -> SchemaOperation, matches: (Constraint, Constraint) -> Bool
    ) {
        var kept: Set<String> = []
        for constraint in old {
            let match = new.first { !kept.contains(name($0)) && matches(constraint, $0) }
            keep(match.map(name), old: name(constraint), table: oldTable, newTable: newTable, ownsIndex: ownsIndex, into: &kept)
        }
        for constraint in new where !kept.contains(name(constraint)) {
            emit(.addConstraints, add(constraint))
        }
    }

    /// Renames a kept constraint, or drops an old one before anything else changes.
    private mutating func keep(_ match: String?, old: String, table oldTable: String, newTable: String, ownsIndex: Bool, into kept: inout Set<String>) {
        if let match {
            kept.insert(match)
            if match != old { emit(.renameConstraints, .renameConstraint(table: newTable, from: old, to: match, ownsIndex: ownsIndex)) }
        } else {
            emit(.dropConstraints, .dropConstraint(table: oldTable, name: old, ownsIndex: ownsIndex))
        }
    }

    /// The condition in the destination's column names. Entity names stay as they are: they are
    /// the discriminator's stored values, so a renamed entity's check is replaced, not kept.
    private static func translateCondition(_ condition: CheckConstraint.Condition, _ columns: [String: String]) -> CheckConstraint.Condition? {
        switch condition {
        case let .isOneOf(column, values):
            return columns[column].map { .isOneOf(column: $0, values: values) }
        case let .requiredForEntities(column, discriminator, entities):
            guard let mapped = columns[column], let mappedDiscriminator = columns[discriminator] else { return nil }
            return .requiredForEntities(column: mapped, discriminator: mappedDiscriminator, entities: entities)
        case let .expression(condition, read):
            // The condition's text names the columns as the destination writes it; a renamed column
            // it reads makes it another check (PostgreSQL's rename would keep the old one in step).
            let mapped = read.compactMap { columns[$0] }
            return mapped.count == read.count ? .expression(condition, columns: mapped) : nil
        }
    }
}

extension CheckConstraint.Condition {
    /// The condition with its value lists sorted, for comparison.
    var normalized: CheckConstraint.Condition {
        switch self {
        case let .isOneOf(column, values): return .isOneOf(column: column, values: values.sorted())
        case let .requiredForEntities(column, discriminator, entities):
            return .requiredForEntities(column: column, discriminator: discriminator, entities: entities.sorted())
        case .expression: return self
        }
    }
}
