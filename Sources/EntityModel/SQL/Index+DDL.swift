extension Index {
    /// `CREATE INDEX "name" ON "schema"."table" (…)`.
    public func createStatement(onTable table: String, inSchema schema: String, quoting quoter: some SQLQuoting) -> String {
        "CREATE INDEX \(quoter.quoteIdentifier(name)) ON \(quoter.qualified(schema, table)) (\(quoter.columnList(columns)))"
    }
}
