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

        if oldTable.primaryKey.name != newTable.primaryKey.name, translate(oldTable.primaryKey.columns) == newTable.primaryKey.columns {
            emit(.renameConstraints, .renameConstraint(table: table, from: oldTable.primaryKey.name, to: newTable.primaryKey.name))
        }

        var keptForeignKeys: Set<String> = []
        for foreignKey in oldTable.foreignKeys {
            let match = translate(foreignKey.columns).flatMap { mapped in
                newTable.foreignKeys.first {
                    !keptForeignKeys.contains($0.name) && $0.columns == mapped && $0.onDelete == foreignKey.onDelete
                        && $0.referencedTable == (tableMatch[foreignKey.referencedTable] ?? foreignKey.referencedTable)
                }
            }
            keep(match?.name, old: foreignKey.name, table: oldTable.name, newTable: table, into: &keptForeignKeys)
        }
        for foreignKey in newTable.foreignKeys where !keptForeignKeys.contains(foreignKey.name) {
            emit(.addConstraints, .addForeignKey(table: table, foreignKey))
        }

        var keptUniques: Set<String> = []
        for unique in oldTable.uniqueConstraints {
            let match = translate(unique.columns).flatMap { mapped in
                newTable.uniqueConstraints.first { !keptUniques.contains($0.name) && $0.columns == mapped }
            }
            keep(match?.name, old: unique.name, table: oldTable.name, newTable: table, into: &keptUniques)
        }
        for unique in newTable.uniqueConstraints where !keptUniques.contains(unique.name) {
            emit(.addConstraints, .addUnique(table: table, unique))
        }

        var keptChecks: Set<String> = []
        for check in oldTable.checkConstraints {
            let match = translateCondition(check.condition, columns).flatMap { mapped in
                newTable.checkConstraints.first { !keptChecks.contains($0.name) && $0.condition.normalized == mapped.normalized }
            }
            keep(match?.name, old: check.name, table: oldTable.name, newTable: table, into: &keptChecks)
        }
        for check in newTable.checkConstraints where !keptChecks.contains(check.name) {
            emit(.addConstraints, .addCheck(table: table, check))
        }

        var keptIndexes: Set<String> = []
        for index in oldTable.indexes {
            let match = translate(index.columns).flatMap { mapped in
                newTable.indexes.first { !keptIndexes.contains($0.name) && $0.columns == mapped }
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

    /// Renames a kept constraint, or drops an old one before anything else changes.
    private mutating func keep(_ match: String?, old: String, table oldTable: String, newTable: String, into kept: inout Set<String>) {
        if let match {
            kept.insert(match)
            if match != old { emit(.renameConstraints, .renameConstraint(table: newTable, from: old, to: match)) }
        } else {
            emit(.dropConstraints, .dropConstraint(table: oldTable, name: old))
        }
    }

    /// The condition in the destination's column names. Entity names stay as they are: they are
    /// the discriminator's stored values, so a renamed entity's check is replaced, not kept.
    private func translateCondition(_ condition: CheckConstraint.Condition, _ columns: [String: String]) -> CheckConstraint.Condition? {
        switch condition {
        case let .isOneOf(column, values):
            return columns[column].map { .isOneOf(column: $0, values: values) }
        case let .requiredForEntities(column, discriminator, entities):
            guard let mapped = columns[column], let mappedDiscriminator = columns[discriminator] else { return nil }
            return .requiredForEntities(column: mapped, discriminator: mappedDiscriminator, entities: entities)
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
        }
    }
}
