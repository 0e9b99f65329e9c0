import TypedSQL

extension Table {
    /// `CREATE TABLE <schema>."table" (…)` with the columns, primary key, unique and check
    /// constraints, but no foreign keys (see ``ForeignKey/addition(toTable:)``).
    public var creation: SQL {
        var lines: [SQL] = columns.map { "    \($0.definition)" }
        if keyIsUniqueIndex != true {
            lines.append("    CONSTRAINT \(objectName: primaryKey.name) PRIMARY KEY (\(ids: primaryKey.columns))")
        }
        for unique in uniqueConstraints {
            lines.append("    CONSTRAINT \(objectName: unique.name) UNIQUE (\(ids: unique.columns))")
        }
        for check in checkConstraints {
            lines.append("    CONSTRAINT \(id: check.name) CHECK (\(check.condition.sql))")
        }
        return "CREATE TABLE \(table: name) (\n\(lines, joinedBy: ",\n")\n)"
    }

    /// After ``creation``: the options of a `serial` key's sequence, which `CREATE TABLE` cannot
    /// give (`ALTER SEQUENCE "account_id_seq" START WITH 7 INCREMENT BY 5 RESTART`, so that a new
    /// table's first row draws the start); empty where the key has none. (An identity's are in
    /// its column's definition.)
    public var keySequenceSettings: [SQL] {
        columns.compactMap { column in
            guard column.generation == .serial, let options = column.sequenceOptions else { return nil }
            return "ALTER SEQUENCE \(table: SQLName.serialSequence(ofTable: name)) \(options.clauses) RESTART"
        }
    }

    /// `CREATE TABLE "schema"."table" (…)`: ``creation`` for `schema`.
    public func createStatement(inSchema schema: String, quoting quoter: some SQLQuoting) -> String {
        creation.text(schema: schema, quoting: quoter)
    }

    /// One `ALTER TABLE … ADD CONSTRAINT … FOREIGN KEY …` per foreign key.
    public var foreignKeyAdditions: [SQL] { foreignKeys.map { $0.addition(toTable: name) } }

    /// One `CREATE INDEX …` per index.
    public var indexCreations: [SQL] { indexes.map { $0.creation(onTable: name) } }

    /// ``foreignKeyAdditions`` for `schema`.
    public func foreignKeyStatements(inSchema schema: String, quoting quoter: some SQLQuoting) -> [String] {
        foreignKeyAdditions.map { $0.text(schema: schema, quoting: quoter) }
    }

    /// ``indexCreations`` for `schema`.
    public func indexStatements(inSchema schema: String, quoting quoter: some SQLQuoting) -> [String] {
        indexCreations.map { $0.text(schema: schema, quoting: quoter) }
    }
}
