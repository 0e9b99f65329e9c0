import LibPQ
import PostgresTestSupport
import TenantMigrator

/// A tenant's tables as an app wrote them by hand, Rails-like: `posts` with its key after its
/// timestamps, `authors` with its key last; neither in the model's order (`id`, the attributes by
/// name, the foreign keys). For tests that an online run leaves the columns where the offline run
/// does, on plain PostgreSQL and on Citus.
public enum RailsLikeBlog {
    /// The statements that make the tables in `schema` (which exists), one a statement (as Citus wants).
    public static func tables(inSchema schema: String) -> [String] {
        [
            "CREATE TABLE \(schema).authors (name text NOT NULL, id bigserial PRIMARY KEY)",
            """
            CREATE TABLE \(schema).posts (title text NOT NULL, created_at timestamp(6) without time zone NOT NULL,
                updated_at timestamp(6) without time zone NOT NULL, id bigserial PRIMARY KEY, views integer NOT NULL DEFAULT 0, body text,
                author_id bigint REFERENCES \(schema).authors (id))
            """,
        ]
    }

    /// The statements that give the tables in `schema` (made by ``tables(inSchema:)``, or from the
    /// model) their rows.
    public static func rows(inSchema schema: String) -> [String] {
        [
            "INSERT INTO \(schema).authors (name) VALUES ('a1'), ('a2')",
            """
            INSERT INTO \(schema).posts (title, created_at, updated_at, views, body, author_id)
                SELECT 'p' || i, '2026-01-01'::timestamp + i * interval '1 hour', '2026-01-02', i, 'b' || i, 1 + i % 2 FROM generate_series(1, 12) AS i
            """,
        ]
    }

    /// The tables' columns as ``tables(inSchema:)`` makes them (``columnOrder(of:on:)``).
    public static let adoptedOrder = ["authors: name, id", "posts: title, created_at, updated_at, id, views, body, author_id"]

    /// v1, imported from the tables in `schema` (`views` may narrow again on the way down), and
    /// v2: `views` widened to int64 (a rewrite: the step runs on a shadow), `body` dropped
    /// (archived), `summary` added (appended offline).
    public static func versions(importedFrom schema: String, on connection: Connection) throws -> (v1: String, v2: String) {
        let imported = try SchemaImport.read(schema: schema, versionName: "v1", on: connection).version.yamlText()
        let views = "views: { type: int32, default: 0 }", body = "body: { type: string, optional: true }"
        guard imported.contains(views), imported.contains(body) else { throw TestFailure("the import did not give \(views) and \(body): \(imported)") }
        let v1 = imported.replacingOccurrences(of: views, with: "views: { type: int32, default: 0, allowsNarrowing: true }")
        var v2: [String] = []
        for line in v1.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) where !line.contains(body) {
            guard line.contains("views: {") else { v2.append(line); continue }
            let indent = String(line.prefix { $0 == " " })
            v2 += [line.replacingOccurrences(of: "int32", with: "int64"), indent + "summary: { type: string, optional: true }"]
        }
        return (v1, v2.joined(separator: "\n"))
    }

    /// Each table of `schema` (the migrator's own aside) with its columns in `attnum` order,
    /// dropped ones left out: `posts: title, created_at, …`.
    public static func columnOrder(of schema: String, on connection: Connection) throws -> [String] {
        try connection.column("""
            SELECT c.relname || ': ' || string_agg(a.attname, ', ' ORDER BY a.attnum) FROM pg_class c
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p') AND c.relname NOT LIKE '\\_%' GROUP BY c.relname ORDER BY 1
            """, [schema], as: String.self)
    }

    /// Every row of `schema`'s tables as a JSON object (keys sorted, whatever the column order).
    public static func values(of schema: String, on connection: Connection) throws -> [String] {
        try connection.column("SELECT to_jsonb(t)::text FROM \(schema).authors t UNION ALL SELECT to_jsonb(p)::text FROM \(schema).posts p ORDER BY 1", as: String.self)
    }
}
