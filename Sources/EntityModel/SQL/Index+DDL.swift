import TypedSQL

extension Index {
    /// `CREATE INDEX "name" ON <schema>."table" (…)`.
    public func creation(onTable table: String) -> SQL {
        guard elements != nil || isUnique != nil || method != nil || predicate != nil else {
            return "CREATE INDEX \(objectName: name) ON \(table: table) (\(ids: columns))"
        }
        let keys: SQL = elements.map { SQL(modelExpression: $0.joined(separator: ", ")) } ?? "\(ids: columns)"
        return "CREATE \(raw: isUnique == true ? "UNIQUE " : "")INDEX \(objectName: name) ON \(table: table)\(raw: method.map { " USING " + $0 } ?? "") (\(keys))"
            + (predicate.map { " WHERE " + SQL(modelExpression: $0) } ?? "")
    }

    /// ``creation(onTable:)`` for `schema`.
    public func createStatement(onTable table: String, inSchema schema: String, quoting quoter: some SQLQuoting) -> String {
        creation(onTable: table).text(schema: schema, quoting: quoter)
    }
}
