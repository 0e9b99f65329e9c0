import EntityModel
import LibPQ
import TypedSQL

extension SchemaSnapshot {
    /// The enum types of `schema` with their values in sort order (`pg_enum.enumsortorder`), by name.
    static func enumTypes(inSchema schema: String, on connection: Connection) throws -> [EnumSnapshot] {
        let query: SQL = """
            SELECT t.typname::text, to_json(ARRAY(SELECT e.enumlabel::text FROM pg_catalog.pg_enum e
                                                  WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder))::text
            FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
            WHERE n.nspname = \(bind: .text(schema)) AND t.typtype = 'e'
            ORDER BY 1
            """
        return try connection.execute(query, schema: schema).map { row in
            EnumSnapshot(name: try row.decode(String.self, at: 0), values: try row.decode(PQJSON.self, at: 1).decode([String].self))
        }
    }
}
