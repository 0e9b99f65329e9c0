extension RelationalSchema {
    /// The DDL that creates this schema's tables inside the existing PostgreSQL schema `schema`:
    /// every `CREATE TABLE` (columns, primary key, unique and check constraints), then every foreign
    /// key as `ALTER TABLE … ADD CONSTRAINT` (so tables may reference each other in any order), then
    /// every `CREATE INDEX`. Tables go in name order. Every name is schema-qualified and quoted
    /// through `quoter`, so nothing depends on `search_path`.
    public func createStatements(inSchema schema: String, quoting quoter: some SQLQuoting) -> [String] {
        tables.map { $0.createStatement(inSchema: schema, quoting: quoter) }
            + tables.flatMap { $0.foreignKeyStatements(inSchema: schema, quoting: quoter) }
            + tables.flatMap { $0.indexStatements(inSchema: schema, quoting: quoter) }
    }

    /// ``createStatements(inSchema:quoting:)`` as one script: statements joined by `;\n`, ending in `;\n`.
    ///
    /// For files and `psql`. Do not send it to a server as one message: Citus refuses a message of
    /// several statements for much DDL. Run ``createStatements(inSchema:quoting:)`` as a pipeline.
    public func renderScript(inSchema schema: String, quoting quoter: some SQLQuoting) -> String {
        let statements = createStatements(inSchema: schema, quoting: quoter)
        return statements.isEmpty ? "" : statements.joined(separator: ";\n") + ";\n"
    }
}
