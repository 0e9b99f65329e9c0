import EntityModel
import TypedSQL

extension SchemaDiffer {
    /// The changes to the enum types: new ones are created before any table uses them, and old
    /// ones dropped once nothing does. A kept type whose values were only added to (anywhere in the
    /// order) gains them with `ADD VALUE`; renamed values (`renamed:` of the later version) are
    /// renamed in place. Any other change of the values (one removed, the order changed), or a
    /// value added that the destination's defaults use (PostgreSQL refuses a value added in the
    /// transaction that uses it, SQLSTATE 55P04), rebuilds the type under its name, once the
    /// step's new tables and columns exist and before its columns change type.
    mutating func diffEnums() {
        let oldTypes = Dictionary(old.enumTypes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newNames = Set(new.enumTypes.map(\.name))
        for type in new.enumTypes {
            guard let previous = oldTypes[type.name] else {
                emit(.renameConstraints, .enumChange(.create(type)))
                continue
            }
            var current = previous.values
            for (from, to) in Self.renamedValues(from: previous, to: type) {
                emit(.renameConstraints, .enumChange(.renameValue(type: type.name, from: from, to: to)))
                current = current.map { $0 == from ? to : $0 }
            }
            guard current != type.values else { continue }
            let added = type.values.filter { !current.contains($0) }
            let usedAtOnce = new.tables.contains { table in
                table.columns.contains { column in
                    guard column.type == type.sqlType, case let .string(value)? = column.defaultValue else { return false }
                    return added.contains(value)
                }
            }
            // A mapping of this step may write an added value into a table it fills (55P04 as well).
            let writtenByMappings = new.tables.contains { table in
                mappingFilledTables.contains(table.name) && table.columns.contains { $0.type == type.sqlType }
            }
            if type.values.filter(current.contains) == current, !usedAtOnce, !writtenByMappings {
                for value in added {
                    let index = type.values.firstIndex(of: value)!
                    let after = type.values[..<index].last
                    emit(.renameConstraints, .enumChange(.addValue(type: type.name, value: value, after: after, before: after == nil ? current.first : nil)))
                }
            } else {
                let removed = current.filter { !type.values.contains($0) }
                let columns = new.tables.flatMap { table in
                    table.columns.filter { $0.type == type.sqlType }.map { column in
                        typedColumn(column, of: table, removing: removed, from: type)
                    }
                }
                rebuiltEnums.append(.rebuild(type: type.name, values: type.values, columns: columns))
            }
        }
        for type in old.enumTypes where !newNames.contains(type.name) {
            droppedEnums.append(type.name)
        }
    }

    /// A column of a rebuilt type. Where it held the type before the step and its rows may hold a
    /// `removed` value, those rows get NULL (an optional column) or the column's default (a required
    /// one), and the account says the values are destroyed in those rows (the archive keeps them,
    /// and the way down gives them back). A required column without a default has nothing to hold
    /// instead: a row with a removed value stops the step (22P02, ``FailureDiagnosis``).
    mutating func typedColumn(_ column: Column, of table: Table, removing removed: [String], from type: EnumType) -> EnumChange.TypedColumn {
        var typed = EnumChange.TypedColumn(table: table.name, column: column.name, defaultValue: column.defaultValue)
        guard !removed.isEmpty, column.isNullable || column.defaultValue != nil,
              let oldTable = tableMatch.first(where: { $0.value == table.name }).flatMap({ old.table(named: $0.key) }),
              let oldName = columnMatch[oldTable.name]?.first(where: { $0.value == column.name })?.key,
              let oldColumn = oldTable.column(named: oldName), oldColumn.type == type.sqlType else { return typed }
        typed.removed = removed
        typed.instead = column.isNullable ? nil : column.defaultValue
        let values = removed.map { "\"\($0)\"" }.joined(separator: ", ")
        let instead = typed.instead.map { "its default \($0.sql(for: .text).text(schema: "", quoting: PlaceholderQuoting()))" } ?? "NULL"
        // (Copied before the step's renames, as a narrowing is: the source names hold.)
        let rows = StepAccount.RowSet("source.\(id: oldColumn.name)::text IN (\(literals: removed))" as SQL,
                                      words: "the rows holding \(values)")
        account.append(.init(kind: .column, table: oldTable.name, column: oldColumn.name, property: property(oldColumn.origin), rows: rows),
                       .destroyed(DestructiveChange(kind: .removeEnumValues, table: oldTable.name, column: oldColumn.name, rowSet: rows,
                           detail: "removes \(values) from enum(\(type.name)): \(table.name).\(column.name) holds \(instead) instead in the rows holding "
                               + (removed.count == 1 ? "it" : "them"))))
        return typed
    }

    /// What waits for the step's tables and columns: the rebuilds, after the columns changed type
    /// (and new tables and columns of the type exist); the drops of the types a rebuild set aside
    /// and of those the destination no longer has, after the old tables and columns went.
    mutating func finishEnums() {
        // A default cannot follow a column into an enum (SQLSTATE 42804): it goes first, and the
        // column's new default is set after the type changed (``diffColumn``).
        phases[.alterColumns] = phases[.alterColumns]?.flatMap { operation -> [SchemaOperation] in
            guard case let .alterType(table, column, type) = operation, type.enumName != nil else { return [operation] }
            return [.setDefault(table: table, column: column, value: nil, type: type), operation]
        }
        // First among the type changes, so that a default of a new value is set on the new type.
        phases[.alterColumns, default: []].insert(contentsOf: rebuiltEnums.flatMap(rebuildingWithDependents), at: 0)
        for rebuild in rebuiltEnums {
            if case let .rebuild(name, _, _) = rebuild { emit(.dropTables, .enumChange(.drop(EnumChange.asideName(name)))) }
        }
        for name in droppedEnums { emit(.dropTables, .enumChange(.drop(name))) }
    }

    /// `rebuild`, between dropping and making again the checks and indexes that cast to the type
    /// (``EnumChange/dropDependents(type:)``): they would keep the type the rebuild sets aside
    /// (`'x'::_tm_old_state`, SQLSTATE 42883). Those of the destination that exist by then are made
    /// again after it; those the step adds later are left to it.
    func rebuildingWithDependents(_ rebuild: EnumChange) -> [SchemaOperation] {
        guard case let .rebuild(type, _, _) = rebuild else { return [.enumChange(rebuild)] }
        let later = Set(((phases[.addConstraints] ?? []) + (phases[.createIndexes] ?? [])).compactMap { operation -> String? in
            switch operation {
            case let .addCheck(table, check): "\(table).\(check.name)"
            case let .createIndex(_, index): index.name
            default: nil
            }
        })
        let (checks, indexes) = new.expressions(castingTo: type)
        let remade: [SchemaOperation] = checks.filter { !later.contains("\($0.table).\($0.check.name)") }.map { .addCheck(table: $0.table, $0.check) }
            + indexes.filter { !later.contains($0.index.name) }.map { .createIndex(table: $0.table, $0.index) }
        guard !checks.isEmpty || !indexes.isEmpty else { return [.enumChange(rebuild)] }
        return [.enumChange(.dropDependents(type: type)), .enumChange(rebuild)] + remade
    }

    /// The values of `old` renamed in `new`, old name → new name: those `new` says it renamed
    /// (`renamed:`), and, on a way down, those `old` says it renamed, backwards.
    static func renamedValues(from old: EnumType, to new: EnumType) -> [(String, String)] {
        var renames: [(String, String)] = []
        for (newName, oldName) in new.renamedValues.sorted(by: { $0.key < $1.key })
        where old.values.contains(oldName) && !old.values.contains(newName) && new.values.contains(newName) {
            renames.append((oldName, newName))
        }
        for (laterName, earlierName) in old.renamedValues.sorted(by: { $0.key < $1.key })
        where old.values.contains(laterName) && !new.values.contains(laterName) && new.values.contains(earlierName) && !old.values.contains(earlierName) {
            renames.append((laterName, earlierName))
        }
        return renames
    }
}
