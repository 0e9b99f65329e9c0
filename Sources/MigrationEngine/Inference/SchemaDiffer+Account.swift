import EntityModel
import TypedSQL

extension SchemaDiffer {
    /// Accounts for a column that exists on both sides: carried (cast when its type widens),
    /// values that may not survive a narrowing, and values of rows whose entity no longer has the
    /// property once it moved down into a sub-entity (cleared after the mappings).
    mutating func accountMatchedColumn(_ oldColumn: Column, _ newColumn: Column, of oldTable: Table, in newTable: Table) {
        guard oldColumn.origin != .primaryKey else { return }
        let item = StepAccount.Item(kind: .column, table: oldTable.name, column: oldColumn.name, property: property(oldColumn.origin))
        if oldColumn.origin == .discriminator {
            account.append(item, .transformed(by: "the entity of each row, renamed with its entity"))
            return
        }
        let location = StepAccount.Location(table: newTable.name, column: newColumn.name)
        let backfilled = oldColumn.isNullable && !newColumn.isNullable && newColumn.defaultValue != nil
        if oldColumn.type == newColumn.type {
            // A backfill overwrites the NULLs (accounted on their own): the other values are carried.
            account.append(backfilled ? item.restricted(to: notNull(oldColumn, of: oldTable)) : item, .carried(to: location))
        } else if TypeChange(from: oldColumn.type, to: newColumn.type) == .widening {
            account.append(item, .transformed(by: "a cast from \(oldColumn.type.rawValue) to \(newColumn.type.rawValue), which keeps every value"))
        } else {
            account.append(item, .destroyed(DestructiveChange(kind: .narrowType, table: oldTable.name, column: oldColumn.name,
                detail: "narrows \(newTable.name).\(newColumn.name) from \(oldColumn.type.rawValue) to \(newColumn.type.rawValue) (declared safe: a value that does not fit fails the migration; one that fits with less precision, fewer decimals or no time of day is rounded to it, and the archive keeps the original)")))
        }
        accountHierarchyMove(oldColumn, newColumn, of: oldTable, in: newTable)
    }

    /// The rows where a source column holds a value, while the step runs.
    private func notNull(_ column: Column, of table: Table) -> StepAccount.RowSet {
        StepAccount.RowSet("source.\(id: currentName(ofOldColumn: column.name, in: table.name)) IS NOT NULL" as SQL,
                           words: "the rows where it holds a value")
    }

    /// A column that becomes required with a default: the backfill writes the default over its
    /// NULLs, and the way back cannot tell them from real values, so the NULLs are archived.
    mutating func accountBackfill(_ column: Column, of table: Table, with value: DefaultValue, type: SQLType) {
        let rows = StepAccount.RowSet("source.\(id: currentName(ofOldColumn: column.name, in: table.name)) IS NULL" as SQL,
                                      words: "the rows where it is NULL")
        account.append(.init(kind: .column, table: table.name, column: column.name, property: property(column.origin), rows: rows),
                       .transformed(by: "the backfill of its NULLs with the default \(value.sql(for: type).text(schema: "", quoting: PlaceholderQuoting()))"),
                       overwritesInPlace: true)
    }

    /// The concrete entities whose rows hold a property, in a version: the declaring entity and
    /// its descendants.
    static func owners(of origin: Column.Origin, in version: ModelVersion) -> [String]? {
        switch origin {
        case let .attribute(entity, _), let .relationship(entity, _):
            return version.hierarchy(of: entity).filter { version.entity(named: $0)?.isAbstract == false }
        default:
            return nil
        }
    }

    /// When a property moves down into a sub-entity, the rows whose entity does not become that
    /// sub-entity (or one of its descendants) no longer have it: the model loses their values,
    /// which are accounted destroyed. The column keeps them, unseen by the model (no table
    /// scan), so moving the property back up finds them again.
    private mutating func accountHierarchyMove(_ oldColumn: Column, _ newColumn: Column, of oldTable: Table, in newTable: Table) {
        guard let oldOwners = Self.owners(of: oldColumn.origin, in: source), let newOwners = Self.owners(of: newColumn.origin, in: destination),
              newTable.column(withOrigin: .discriminator) != nil else { return }
        let losing = oldOwners.filter { entity in
            guard let mapped = correspondence.destinationEntity(of: entity) else { return false }   // deleted: accounted with the rows
            return !newOwners.contains(mapped)
        }
        guard !losing.isEmpty else { return }
        // Evaluated once the mappings ran (a mapping may retype rows into the sub-entity).
        let rows = StepAccount.RowSet(
            "source.\"entity\" NOT IN (\(literals: newOwners)) AND source.\(id: currentName(ofOldColumn: oldColumn.name, in: oldTable.name)) IS NOT NULL" as SQL,
            words: "the rows of \(losing.joined(separator: ", ")) where it holds a value")
        let what = property(newColumn.origin) ?? newColumn.name
        account.append(.init(kind: .column, table: oldTable.name, column: oldColumn.name, property: property(oldColumn.origin), rows: rows),
                       .destroyed(DestructiveChange(kind: .hideValues, table: oldTable.name, column: oldColumn.name, rowSet: rows,
                           detail: "\(what) belongs to \(newOwners.joined(separator: ", ")) only: rows of \(losing.joined(separator: ", ")) that do not become one lose their values (left unseen in \(newTable.name).\(newColumn.name))")))
    }
}
