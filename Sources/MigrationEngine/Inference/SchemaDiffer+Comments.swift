import EntityModel

extension SchemaDiffer {
    /// Comments changed on a matched table or its columns, or on a column the step adds: set in the
    /// catalog once the columns are in place (a created table gets its comments with it).
    mutating func diffComments() {
        let newToOld = Dictionary(tableMatch.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        for table in new.tables {
            guard let oldName = newToOld[table.name], let oldTable = old.table(named: oldName) else { continue }
            if oldTable.comment != table.comment {
                emit(.finishColumns, .setComment(table: table.name, column: nil, comment: table.comment))
            }
            let columnsToOld = Dictionary((columnMatch[oldName] ?? [:]).map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            for column in table.columns {
                let previous = columnsToOld[column.name].flatMap { oldTable.column(named: $0)?.comment }
                if previous != column.comment {
                    emit(.finishColumns, .setComment(table: table.name, column: column.name, comment: column.comment))
                }
            }
        }
    }
}
