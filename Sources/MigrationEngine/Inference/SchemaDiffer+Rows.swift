import EntityModel
import TypedSQL

extension SchemaDiffer {
    /// Moves rows between tables when inheritance changes: entities leaving a hierarchy take their
    /// rows (and ids) to their new table; a whole table joining a hierarchy is merged into the
    /// hierarchy's table with its ids offset past the existing ones, and references follow.
    /// Rows of entities that no longer exist are deleted from tables that stay.
    mutating func planRowMoves() {
        for oldTable in old.tables {
            guard case let .entity(root) = oldTable.origin else { continue }
            let target = tableMatch[oldTable.name]
            var groups: [String: [String]] = [:]
            var removed: [String] = []
            for entity in source.hierarchy(of: root) where source.entity(named: entity)?.isAbstract == false {
                guard let mapped = correspondence.destinationEntity(of: entity) else { removed.append(entity); continue }
                let destinationTable = new.table(forEntity: destination.rootEntity(of: mapped))!.name
                if destinationTable == target {
                    if mapped != entity, new.table(named: destinationTable)?.column(withOrigin: .discriminator) != nil {
                        // A sub-entity folded into its parent changes type after the mappings, which
                        // still see it under its own name.
                        let folded = correspondence.entities[entity] == nil
                        emit(folded ? .deleteRows : .moveData, .renameDiscriminatorValue(table: destinationTable, from: entity, to: mapped))
                    }
                } else {
                    groups[destinationTable, default: []].append(entity)
                }
            }
            if let target, !removed.isEmpty, oldTable.column(withOrigin: .discriminator) != nil {
                // After the mappings, which may still read (or retype) these rows.
                // Links this step moved point at those rows too (their new storage gets its foreign
                // key only at the end, so nothing removes them): they go first. (The archive keeps
                // their old storage's values.)
                for case let .moveLinks(move) in phases[.moveData] ?? [] {
                    for (column, referenced) in referencingColumns(of: move.to) where referenced == target {
                        emit(.deleteRows, .dropLinksTo(move.to, column: column, table: target, entities: removed))
                    }
                }
                emit(.deleteRows, .deleteEntityRows(table: target, entities: removed))
                let rows = StepAccount.RowSet("source.\"entity\" IN (\(literals: removed))" as SQL,
                                              words: "the rows of \(removed.joined(separator: ", "))")
                account.append(.init(kind: .rows, table: oldTable.name, property: removed.joined(separator: ", "), rows: rows),
                               .destroyed(DestructiveChange(kind: .deleteRows, table: oldTable.name, rowSet: rows,
                    detail: "deletes the rows of \(removed.joined(separator: ", ")), which no longer exist, from \(oldTable.name)")))
            }
            if target == nil, removed.isEmpty, !groups.isEmpty { emptiedTables.insert(oldTable.name) }
            for (destinationName, entities) in groups.sorted(by: { $0.key < $1.key }) {
                moveRows(of: entities, from: oldTable, to: destinationName, tableSurvives: target != nil)
            }
        }
    }

    /// The columns of a new link storage and the tables they point at.
    private func referencingColumns(of storage: LinkStorage) -> [(column: String, table: String)] {
        let (name, columns): (String, [String]) = {
            switch storage {
            case let .foreignKey(table, column): return (table, [column])
            case let .joinTable(table, first, second): return (table, [first, second])
            }
        }()
        guard let table = new.table(named: name) else { return [] }
        return columns.compactMap { column in table.foreignKeys.first { $0.columns == [column] }.map { (column, $0.referencedTable) } }
    }

    private mutating func moveRows(of entities: [String], from oldTable: Table, to destinationName: String, tableSurvives: Bool) {
        guard let destinationTable = new.table(named: destinationName) else { return }
        let destinationHasRows = tableMatch.values.contains(destinationName)
        if tableSurvives && destinationHasRows {
            reasons.append("\(entities.joined(separator: ", ")) move from table \(oldTable.name) into table \(destinationName), which has rows of its own; that needs a mapping model")
            return
        }
        var pairs: [RowMove.ColumnPair] = []
        var covered: Set<String> = ["id"]
        for column in oldTable.columns where column.origin != .primaryKey && column.origin != .discriminator {
            guard let destinationColumn = correspondence.column(in: destinationTable, matching: column.origin) else { continue }
            pairs.append(.init(source: tableSurvives ? currentName(ofOldColumn: column.name, in: oldTable.name) : column.name,
                               destination: destinationColumn.name))
            covered.insert(destinationColumn.name)
            if tableSurvives { movedAwayColumns.insert(oldTable.name + "." + column.name) }
        }
        let hasDiscriminator = destinationTable.column(withOrigin: .discriminator) != nil
        if hasDiscriminator { covered.insert(destinationTable.column(withOrigin: .discriminator)!.name) }
        for column in destinationTable.columns where !covered.contains(column.name) && !column.isNullable && column.defaultValue == nil {
            reasons.append("rows of \(entities.joined(separator: ", ")) moving into \(destinationName) have no value for required column \(column.name)")
        }
        var references: [RowMove.ColumnRef] = []
        if destinationHasRows {
            for table in old.tables {
                for foreignKey in table.foreignKeys where foreignKey.referencedTable == oldTable.name {
                    references.append(.init(table: currentName(ofOldTable: table.name), column: currentName(ofOldColumn: foreignKey.columns[0], in: table.name)))
                }
            }
        }
        let discriminator = hasDiscriminator
            ? Dictionary(uniqueKeysWithValues: entities.map { ($0, correspondence.entities[$0]!) })
            : nil
        emit(.moveData, .moveRows(RowMove(
            fromTable: tableSurvives ? currentName(ofOldTable: oldTable.name) : oldTable.name,
            toTable: destinationName,
            columns: pairs,
            entities: tableSurvives || oldTable.column(withOrigin: .discriminator) != nil ? entities : nil,
            discriminator: discriminator,
            offsetsIDs: destinationHasRows,
            references: references
        )))
        emit(.finishColumns, .resetIdentity(table: destinationName))
        filledTables.insert(destinationName)
    }
}
