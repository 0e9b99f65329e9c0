import EntityModel
import LibPQ
import TypedSQL

/// A family whose v2 renames both entities and the relationship between them (their tables, the
/// foreign key column and every constraint's derived name change), and whose v3 changes the check
/// and the foreign key's delete rule: steps that address those constraints by the names v2
/// derives (`book_title_check`, `book_author_id_fkey`). For servers that keep a foreign key's or
/// check's name across a rename (Citus), and tenants that do.
public enum RenamedConstraintsFamily {
    public static let v1 = """
        entities:
          Novel:
            attributes:
              title: { type: string, check: "title <> ''" }
              code: { type: string, unique: true }
            relationships:
              writer: { destination: Writer, inverse: novels }
          Writer:
            attributes:
              name: { type: string, indexed: true }
            relationships:
              novels: { destination: Novel, toMany: true, inverse: writer }
        """
    public static let v2 = """
        entities:
          Book:
            renamingIdentifier: Novel
            attributes:
              title: { type: string, check: "title <> ''" }
              code: { type: string, unique: true }
            relationships:
              author: { destination: Author, inverse: books, renamingIdentifier: writer }
          Author:
            renamingIdentifier: Writer
            attributes:
              name: { type: string, indexed: true }
            relationships:
              books: { destination: Book, toMany: true, inverse: author, renamingIdentifier: novels }
        """
    public static let v3 = v2
        .replacingOccurrences(of: "check: \"title <> ''\"", with: "check: \"length(title) > 1\"")
        .replacingOccurrences(of: "inverse: author, renamingIdentifier: novels", with: "inverse: author, deleteRule: cascade")

    /// The versions, by name.
    public static let versions = [("v1", v1), ("v2", v2), ("v3", v3)]

    /// The family, loaded.
    public static func family() throws -> ModelFamily {
        try ModelFamily(name: "Names", versions: versions.map { try ModelVersion(name: $0.0, yaml: $0.1, file: "\($0.0).yaml") })
    }

    /// Two writers and three novels, one without a writer, in v1's tables of `schema`.
    public static func insertRows(into schema: String, on connection: Connection) throws {
        try connection.execute("INSERT INTO \(id: schema).writer (name) VALUES ('w1'), ('w2')", schema: "")
        try connection.execute("INSERT INTO \(id: schema).novel (title, code, writer_id) VALUES ('n1', 'a', 1), ('n2', 'b', 2), ('n3', 'c', NULL)", schema: "")
    }

    /// Each novel's title, code and writer, read from v1's tables of `schema`.
    public static func values(in schema: String, on connection: Connection) throws -> [String] {
        try connection.execute("SELECT title || '/' || code || '/' || coalesce(w.name, '-') FROM \(id: schema).novel n "
            + "LEFT JOIN \(id: schema).writer w ON w.id = n.writer_id ORDER BY 1", schema: "").map { try $0.decode(String.self, at: 0) }
    }

    /// The constraints of `schema`'s tables, `table kind name`, ordered.
    public static func constraints(in schema: String, on connection: Connection) throws -> [String] {
        try connection.execute("SELECT c.relname::text || ' ' || k.contype::text || ' ' || k.conname::text FROM pg_catalog.pg_constraint k "
            + "JOIN pg_catalog.pg_class c ON c.oid = k.conrelid WHERE c.relnamespace = \(literal: schema)::regnamespace ORDER BY 1", schema: "")
            .map { try $0.decode(String.self, at: 0) }
    }

    /// What ``constraints(in:on:)`` reads at v2 where the foreign key and the check kept v1's
    /// names: the key and the unique constraint renamed through their indexes.
    public static let keptAtV2 = ["author p author_pkey", "book c novel_title_check", "book f novel_writer_id_fkey", "book p book_pkey", "book u book_code_key"]
}
