import EntityModel
import LibPQ
import TypedSQL

extension SchemaSnapshot {
    /// Reads the comments of the snapshot's tables and columns in `schema` (one query for all).
    mutating func readComments(inSchema schema: String, on connection: Connection) throws {
        let query: SQL = """
            SELECT c.relname::text, a.attname::text, d.description
            FROM pg_catalog.pg_description d
            JOIN pg_catalog.pg_class c ON c.oid = d.objoid AND d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.objsubid AND d.objsubid > 0
            WHERE n.nspname = \(bind: .text(schema)) AND c.relkind IN ('r', 'p') AND (d.objsubid = 0 OR a.attname IS NOT NULL)
            """
        for row in try connection.execute(query, schema: schema) {
            let table = try row.decode(String.self, at: 0), column = try row.decode(String?.self, at: 1)
            let text = try row.decode(String.self, at: 2)
            guard let tableIndex = tables.firstIndex(where: { $0.name == table }) else { continue }
            if let column {
                guard let columnIndex = tables[tableIndex].columns.firstIndex(where: { $0.name == column }) else { continue }
                tables[tableIndex].columns[columnIndex].comment = text
            } else {
                tables[tableIndex].comment = text
            }
        }
    }
}
