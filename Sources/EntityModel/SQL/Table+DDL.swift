extension Table {
    /// `CREATE TABLE "schema"."table" (…)` with the columns, primary key, unique and check
    /// constraints, but no foreign keys (see ``ForeignKey/addStatement(toTable:inSchema:quoting:)``).
    public func createStatement(inSchema schema: String, quoting quoter: some SQLQuoting) -> String {
        var lines = columns.map { "    " + $0.definition(quoting: quoter) }
        lines.append("    CONSTRAINT \(quoter.quoteIdentifier(primaryKey.name)) PRIMARY KEY (\(quoter.columnList(primaryKey.columns)))")
        for unique in uniqueConstraints {
            lines.append("    CONSTRAINT \(quoter.quoteIdentifier(unique.name)) UNIQUE (\(quoter.columnList(unique.columns)))")
        }
        for check in checkConstraints {
            lines.append("    CONSTRAINT \(quoter.quoteIdentifier(check.name)) CHECK (\(check.condition.sql(quoting: quoter)))")
        }
        return "CREATE TABLE \(quoter.qualified(schema, name)) (\n" + lines.joined(separator: ",\n") + "\n)"
    }

    /// One `ALTER TABLE … ADD CONSTRAINT … FOREIGN KEY …` per foreign key.
    public func foreignKeyStatements(inSchema schema: String, quoting quoter: some SQLQuoting) -> [String] {
        foreignKeys.map { $0.addStatement(toTable: name, inSchema: schema, quoting: quoter) }
    }

    /// One `CREATE INDEX …` per index.
    public func indexStatements(inSchema schema: String, quoting quoter: some SQLQuoting) -> [String] {
        indexes.map { $0.createStatement(onTable: name, inSchema: schema, quoting: quoter) }
    }
}
