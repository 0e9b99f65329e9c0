import EntityModel

extension SchemaDiffer {
    /// Renames, column changes and constraint changes of a table that exists on both sides.
    mutating func diffTable(_ oldTable: Table, _ newTable: Table) {
        if oldTable.name != newTable.name { emit(.renameTables, .renameTable(from: oldTable.name, to: newTable.name)) }
        renameSerialSequences(of: oldTable, to: newTable)
        let matches = columnMatch[oldTable.name] ?? [:]
        let displaced = displacedColumns[oldTable.name] ?? [:]
        for oldColumn in oldTable.columns {
            if let temporary = displaced[oldColumn.name] {
                emit(.renameColumns, .renameColumn(table: newTable.name, from: oldColumn.name, to: temporary))
            }
            guard let newName = matches[oldColumn.name], let newColumn = newTable.column(named: newName) else {
                dropColumn(oldColumn, of: oldTable)
                continue
            }
            if let temporary = displaced[oldColumn.name] {
                emit(.renameColumnsIntoPlace, .renameColumn(table: newTable.name, from: temporary, to: newName))
            } else if oldColumn.name != newName {
                emit(.renameColumns, .renameColumn(table: newTable.name, from: oldColumn.name, to: newName))
            }
            diffColumn(oldColumn, newColumn, table: newTable.name, from: oldTable)
            diffKeySequence(oldColumn, newColumn, table: newTable.name)
            diffKeyGeneration(oldColumn, newColumn, table: newTable.name)
            accountMatchedColumn(oldColumn, newColumn, of: oldTable, in: newTable)
        }
        let matchedNew = Set(matches.values)
        for newColumn in newTable.columns where !matchedNew.contains(newColumn.name) {
            addColumn(newColumn, to: newTable, from: oldTable)
        }
        diffConstraints(oldTable, newTable)
    }

    mutating func dropColumn(_ column: Column, of table: Table) {
        let live = displacedColumns[table.name]?[column.name] ?? column.name
        emit(.dropColumns, .dropColumn(table: currentName(ofOldTable: table.name), column: live))
        guard column.origin != .discriminator, column.origin != .primaryKey else { return }
        let key = table.name + "." + column.name
        let item = StepAccount.Item(kind: .column, table: table.name, column: column.name, property: property(column.origin))
        if movedAwayColumns.contains(key) {
            account.append(item, .transformed(by: "moved to their new storage (inferred)"), reversible: true)
            return
        }
        let what: String
        switch column.origin {
        case let .attribute(entity, attribute): what = "attribute \(entity).\(attribute)"
        case let .relationship(entity, relationship): what = "the links of \(entity).\(relationship)"
        default: what = "column \(column.name)"
        }
        account.append(item, .destroyed(DestructiveChange(kind: .dropColumn, table: table.name, column: column.name,
                                                           detail: "drops column \(table.name).\(column.name) (\(what)) and its values")))
    }

    /// `Entity.property` of a column's origin, for the account.
    func property(_ origin: Column.Origin) -> String? {
        switch origin {
        case let .attribute(entity, name), let .relationship(entity, name), let .joinSource(entity, name), let .joinDestination(entity, name):
            return "\(entity).\(name)"
        case .primaryKey, .discriminator: return nil
        }
    }

    mutating func addColumn(_ column: Column, to table: Table, from oldTable: Table) {
        let key = table.name + "." + column.name
        if column.origin == .discriminator {
            // Every existing row belongs to the old root entity, now named…
            guard case let .entity(oldRoot) = oldTable.origin, let current = correspondence.entities[oldRoot] else {
                reasons.append("table \(table.name) gains an inheritance discriminator, but its existing rows match no entity")
                return
            }
            var adding = column
            adding.defaultValue = .string(current)
            emit(.addColumns, .addColumn(table: table.name, column: adding))
            emit(.finishColumns, .setDefault(table: table.name, column: column.name, value: column.defaultValue, type: column.type))
            return
        }
        if !column.isNullable && column.defaultValue == nil {
            if restoresFromArchive, !linkFedColumns.contains(key), !mappingFilledTables.contains(table.name), let property = property(column.origin) {
                // The way up that dropped it archived every row's value: required once they are back.
                var adding = column
                adding.isNullable = true
                emit(.addColumns, .addColumn(table: table.name, column: adding))
                requiredFromArchive.append(.init(table: table.name, column: column.name, property: property))
                return
            }
            guard linkFedColumns.contains(key) || mappingFilledTables.contains(table.name) else {
                reasons.append("\(describe(column.origin)) is new and required (\(table.name).\(column.name) NOT NULL) but has no default value for the existing rows")
                return
            }
            if !linkFedColumns.contains(key) { columnsOnlyMappingsFill.insert(key) }
            var adding = column
            adding.isNullable = true
            emit(.addColumns, .addColumn(table: table.name, column: adding))
            emit(.finishColumns, .setNullable(table: table.name, column: column.name, isNullable: false))
            return
        }
        emit(.addColumns, .addColumn(table: table.name, column: column))
    }

    /// Type, default and nullability changes of a matched column.
    mutating func diffColumn(_ oldColumn: Column, _ newColumn: Column, table: String, from oldTable: Table) {
        if oldColumn.type != newColumn.type {
            switch TypeChange(from: oldColumn.type, to: newColumn.type) {
            case .widening:
                emit(.alterColumns, .alterType(table: table, column: newColumn.name, to: newColumn.type))
            case .narrowing where allowsNarrowing(oldColumn.origin, newColumn.origin):
                if restoresFromArchive, let wider = TypeChange.numericHoldingBoth(oldColumn.type, newColumn.type), let property = property(newColumn.origin) {
                    // Fewer integer digits: a value the way up rounded up fits once its archived value is back.
                    emit(.alterColumns, .alterType(table: table, column: newColumn.name, to: wider))
                    narrowedFromArchive.append(.init(table: table, column: newColumn.name, property: property, type: newColumn.type))
                } else {
                    emit(.alterColumns, .alterType(table: table, column: newColumn.name, to: newColumn.type))
                }
            case .narrowing:
                reasons.append("\(describe(newColumn.origin)) changes type from \(oldColumn.type.rawValue) to \(newColumn.type.rawValue), which narrows it; declare `allowsNarrowing: true` on the attribute if every value fits")
            case .impossible:
                reasons.append("\(describe(newColumn.origin)) changes type from \(oldColumn.type.rawValue) to \(newColumn.type.rawValue), which PostgreSQL cannot cast")
            }
        }
        if oldColumn.defaultValue != newColumn.defaultValue || (oldColumn.type != newColumn.type && newColumn.defaultValue != nil) {
            emit(.alterColumns, .setDefault(table: table, column: newColumn.name, value: newColumn.defaultValue, type: newColumn.type))
        }
        if oldColumn.isNullable && !newColumn.isNullable {
            if let value = newColumn.defaultValue {
                // After the mappings, which must still see the NULLs; the archive keeps them.
                emit(.backfill, .backfill(table: table, column: newColumn.name, value: value, type: newColumn.type))
                accountBackfill(oldColumn, of: oldTable, with: value, type: newColumn.type)
                emit(.finishColumns, .setNullable(table: table, column: newColumn.name, isNullable: false))
            } else if linkFedColumns.contains(table + "." + newColumn.name) || isAlreadyRequired(oldColumn, in: oldTable) {
                emit(.finishColumns, .setNullable(table: table, column: newColumn.name, isNullable: false))
            } else if mappingFilledTables.contains(table) {
                // The mappings must fill the rows where it is empty (the validation stage reports a
                // row they left empty).
                columnsMadeRequiredForMappings.insert(table + "." + newColumn.name)
                emit(.finishColumns, .setNullable(table: table, column: newColumn.name, isNullable: false))
            } else {
                reasons.append("\(describe(newColumn.origin)) becomes required but has no default value for the rows where it is empty")
            }
        } else if !oldColumn.isNullable && newColumn.isNullable {
            emit(.alterColumns, .setNullable(table: table, column: newColumn.name, isNullable: true))
        }
    }

    /// Whether every row that stays in the table already has a value: the column was a required
    /// property of sub-entities (nullable plus a check), and only rows of those entities remain
    /// once the others moved out or were deleted.
    func isAlreadyRequired(_ column: Column, in oldTable: Table) -> Bool {
        guard case let .entity(root) = oldTable.origin, let newName = tableMatch[oldTable.name] else { return false }
        let staying = source.hierarchy(of: root).filter { entity in
            guard source.entity(named: entity)?.isAbstract == false, let mapped = correspondence.destinationEntity(of: entity) else { return false }
            return new.table(forEntity: destination.rootEntity(of: mapped))?.name == newName
        }
        return oldTable.checkConstraints.contains { check in
            guard case let .requiredForEntities(checked, _, entities) = check.condition, checked == column.name else { return false }
            return Set(staying).isSubset(of: Set(entities))
        }
    }

    /// A narrowing is allowed when the attribute declares it safe in either version.
    func allowsNarrowing(_ oldOrigin: Column.Origin, _ newOrigin: Column.Origin) -> Bool {
        if narrowingDeclaredBySteps { return true }
        func declared(_ origin: Column.Origin, in version: ModelVersion) -> Bool {
            guard case let .attribute(entity, attribute) = origin else { return false }
            return version.entity(named: entity)?.attribute(named: attribute)?.allowsNarrowing ?? false
        }
        return declared(oldOrigin, in: source) || declared(newOrigin, in: destination)
    }

    func describe(_ origin: Column.Origin) -> String {
        switch origin {
        case let .attribute(entity, attribute): return "attribute \(entity).\(attribute)"
        case let .relationship(entity, relationship): return "relationship \(entity).\(relationship)"
        case let .joinSource(entity, relationship), let .joinDestination(entity, relationship): return "relationship \(entity).\(relationship)"
        case .primaryKey: return "the id column"
        case .discriminator: return "the entity discriminator"
        }
    }
}

/// How a column type change carries its values.
enum TypeChange {
    case widening, narrowing, impossible

    init(from: SQLType, to: SQLType) {
        if let change = Self.parameterized(from: from, to: to) {
            self = change
            return
        }
        let numeric: [SQLType] = [.smallint, .integer, .bigint, .numeric, .real, .doublePrecision]
        let widenings: [SQLType: Set<SQLType>] = [
            .smallint: [.integer, .bigint, .numeric, .real, .doublePrecision],
            .integer: [.bigint, .numeric, .doublePrecision],
            .bigint: [.numeric],
            .real: [.doublePrecision],
        ]
        if to == .text || widenings[from]?.contains(to) == true {
            self = .widening
        } else if (numeric.contains(from) && numeric.contains(to)) || from == .text || (from == .jsonb && to == .text) {
            self = .narrowing
        } else {
            self = .impossible
        }
    }
}
