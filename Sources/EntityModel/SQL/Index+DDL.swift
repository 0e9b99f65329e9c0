extension Index {
    /// `CREATE INDEX "name" ON <schema>."table" (…)`.
    public func creation(onTable table: String) -> SQL {
        "CREATE INDEX \(id: name) ON \(table: table) (\(ids: columns))"
    }

    /// ``creation(onTable:)`` for `schema`.
    public func createStatement(onTable table: String, inSchema schema: String, quoting quoter: some SQLQuoting) -> String {
        creation(onTable: table).text(schema: schema, quoting: quoter)
    }
}
