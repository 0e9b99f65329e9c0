import EntityModel
import LibPQ
import TypedSQL

extension SchemaSnapshot {
    /// The domains of `schema`: each with its base type, NOT NULL, default and checks, by name.
    /// `strip` takes the schema's own qualifier off the names as the columns' types have it.
    static func domains(inSchema schema: String, strip: (String) -> String, on connection: Connection) throws -> [DomainSnapshot] {
        let query: SQL = """
            SELECT pg_catalog.format_type(t.oid, NULL), pg_catalog.format_type(t.typbasetype, t.typtypmod), t.typnotnull,
                   pg_catalog.pg_get_expr(t.typdefaultbin, 0),
                   to_json(ARRAY(SELECT pg_catalog.pg_get_constraintdef(c.oid) FROM pg_catalog.pg_constraint c
                                 WHERE c.contypid = t.oid AND c.contype = 'c' ORDER BY 1))::text
            FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
            WHERE n.nspname = \(bind: .text(schema)) AND t.typtype = 'd'
            ORDER BY 1
            """
        return try connection.execute(query, schema: schema).map { row in
            DomainSnapshot(
                name: strip(try row.decode(String.self, at: 0)), baseType: strip(try row.decode(String.self, at: 1)),
                isNotNull: try row.decode(Bool.self, at: 2), defaultExpression: try row.decode(String?.self, at: 3).map(strip),
                checks: try row.decode(PQJSON.self, at: 4).decode([String].self)
            )
        }
    }
}
