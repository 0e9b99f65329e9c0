import TypedSQL

extension ForeignKey {
    /// `ALTER TABLE <schema>."table" ADD CONSTRAINT "name" FOREIGN KEY (…) REFERENCES <schema>."other" (…) ON DELETE …`.
    public func addition(toTable table: String) -> SQL {
        "ALTER TABLE \(table: table) ADD CONSTRAINT \(id: name) FOREIGN KEY (\(ids: columns)) "
            + "REFERENCES \(table: referencedTable) (\(ids: referencedColumns)) ON DELETE \(raw: onDelete.sql)"
            + "\(raw: onUpdate.map { " ON UPDATE " + $0.sql } ?? "")\(raw: isDeferred == true ? " DEFERRABLE INITIALLY DEFERRED" : "")"
    }

    /// ``addition(toTable:)`` for `schema`.
    public func addStatement(toTable table: String, inSchema schema: String, quoting quoter: some SQLQuoting) -> String {
        addition(toTable: table).text(schema: schema, quoting: quoter)
    }
}
