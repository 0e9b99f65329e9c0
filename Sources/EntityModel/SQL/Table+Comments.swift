import TypedSQL

extension Table {
    /// `COMMENT ON TABLE` and `COMMENT ON COLUMN` for the table's comment and its columns' (none
    /// for what has none).
    public var commentStatements: [SQL] {
        (comment.map { [Self.comment(table: name, column: nil, $0)] } ?? [])
            + columns.compactMap { column in column.comment.map { Self.comment(table: name, column: column.name, $0) } }
    }

    /// `COMMENT ON TABLE <schema>."t" IS '…'` (column nil) or `COMMENT ON COLUMN <schema>."t"."c" IS '…'`;
    /// `IS NULL` removes it.
    public static func comment(table: String, column: String?, _ text: String?) -> SQL {
        let value: SQL = text.map { "\(literal: $0)" } ?? "NULL"
        guard let column else { return "COMMENT ON TABLE \(table: table) IS \(value)" }
        return "COMMENT ON COLUMN \(table: table).\(id: column) IS \(value)"
    }
}
