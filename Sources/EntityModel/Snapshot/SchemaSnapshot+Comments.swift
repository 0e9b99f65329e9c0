extension SchemaSnapshot {
    /// The differences of the comments of the tables and columns both snapshots have.
    func commentDifferences(from expected: SchemaSnapshot) -> [SchemaDifference] {
        var differences: [SchemaDifference] = []
        for want in expected.tables {
            guard let have = table(named: want.name) else { continue }
            if have.comment != want.comment {
                differences.append(SchemaDifference(kind: .tableComment, table: want.name, expected: want.comment, actual: have.comment))
            }
            for column in want.columns {
                guard let live = have.column(named: column.name), live.comment != column.comment else { continue }
                differences.append(SchemaDifference(kind: .columnComment, table: want.name, column: column.name, expected: column.comment, actual: live.comment))
            }
        }
        return differences
    }
}
