import EntityModel
import LibPQ
import TypedSQL

extension SchemaSnapshot {
    /// The tables of `schema` that ``read(schema:on:)`` skips because their names start with `_`,
    /// the prefix the model reserves for the tool, other than the tool's own (`_tm_…`): an
    /// application's tables such as Prisma's `_prisma_migrations` and its implicit many-to-many
    /// tables (`_CategoryToPost`). Sorted by name.
    ///
    /// `model import` names each one, so that none is left out silently.
    public static func underscoreTables(schema: String, on connection: Connection) throws -> [String] {
        let query: SQL = """
            SELECT c.relname::text AS name
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = \(bind: .text(schema)) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
              AND left(c.relname, 1) = '_' AND left(c.relname, 4) <> '_tm_'
            ORDER BY 1
            """
        return try connection.execute(query, schema: schema).map { try $0.decode(String.self, column: "name") }
    }
}
