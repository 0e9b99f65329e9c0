import TypedSQL

extension RelationalSchema {
    /// The DDL that creates this schema's tables inside an existing PostgreSQL schema: every enum
    /// type as `CREATE TYPE … AS ENUM`, every `CREATE TABLE` (columns, primary key, unique and check constraints), then every foreign key as
    /// `ALTER TABLE … ADD CONSTRAINT` (so tables may reference each other in any order), then every
    /// `CREATE INDEX`. Tables go in name order. Every name is schema-qualified and quoted, so
    /// nothing depends on `search_path`.
    public var creationStatements: [SQL] {
        enumTypes.map(\.creation) + sequences.map(\.creation) + tables.flatMap { [$0.creation] + $0.keySequenceSettings } + tables.flatMap(\.foreignKeyAdditions) + tables.flatMap(\.indexCreations) + tables.flatMap(\.commentStatements)
    }

    /// ``creationStatements`` for `schema`.
    public func createStatements(inSchema schema: String, quoting quoter: some SQLQuoting) -> [String] {
        creationStatements.map { $0.text(schema: schema, quoting: quoter) }
    }

    /// ``createStatements(inSchema:quoting:)`` as one script: statements joined by `;\n`, ending in `;\n`.
    ///
    /// For files and `psql`. Do not send it to a server as one message: Citus refuses a message of
    /// several statements for much DDL. Run the statements as a pipeline.
    public func renderScript(inSchema schema: String, quoting quoter: some SQLQuoting) -> String {
        let statements = createStatements(inSchema: schema, quoting: quoter)
        return statements.isEmpty ? "" : statements.joined(separator: ";\n") + ";\n"
    }
}
