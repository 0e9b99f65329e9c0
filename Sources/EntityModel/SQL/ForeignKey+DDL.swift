extension ForeignKey {
    /// `ALTER TABLE "schema"."table" ADD CONSTRAINT "name" FOREIGN KEY (…) REFERENCES "schema"."other" (…) ON DELETE …`.
    public func addStatement(toTable table: String, inSchema schema: String, quoting quoter: some SQLQuoting) -> String {
        "ALTER TABLE \(quoter.qualified(schema, table)) ADD CONSTRAINT \(quoter.quoteIdentifier(name)) "
            + "FOREIGN KEY (\(quoter.columnList(columns))) "
            + "REFERENCES \(quoter.qualified(schema, referencedTable)) (\(quoter.columnList(referencedColumns))) "
            + "ON DELETE \(onDelete.sql)"
    }
}
