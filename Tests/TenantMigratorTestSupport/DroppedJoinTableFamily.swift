/// Books and tags linked by a many-to-many that v2 drops (its join table's links archived, each by
/// its pair of ids), with `note` dropped too (so the step runs in an online run's shadow); the app
/// adds, removes and moves links while an online run catches up
/// (`OnlineRunJoinTableArchiveTests`, and on Citus).
public enum DroppedJoinTableFamily {
    public static let v1 = """
        entities:
          Book:
            attributes:
              title: { type: string }
              note: { type: string, optional: true }
            relationships:
              tags: { destination: Tag, toMany: true, inverse: books }
          Tag:
            attributes:
              word: { type: string }
            relationships:
              books: { destination: Book, toMany: true, inverse: tags }
        """
    public static let v2 = """
        entities:
          Book:
            attributes:
              title: { type: string }
          Tag:
            attributes:
              word: { type: string }
        """
    public static let versions = [("v1", v1), ("v2", v2)]

    /// v2 of another kind: the links stay, Tag renamed Badge, so that the join table is named and
    /// keyed from Badge's side (`badge_books (badge_id, book_id)`, its pair the other way round),
    /// with `note` dropped (the step runs in the shadow).
    public static let turnedV2 = """
        entities:
          Book:
            attributes:
              title: { type: string }
            relationships:
              tags: { destination: Badge, toMany: true, inverse: books }
          Badge:
            renamingIdentifier: Tag
            attributes:
              word: { type: string }
            relationships:
              books: { destination: Book, toMany: true, inverse: tags }
        """
    /// The links at ``turnedV2`` (`%@` the schema), book first.
    public static let turnedLinks = "SELECT book_id || '-' || badge_id FROM %@.badge_books ORDER BY book_id, badge_id"

    /// Six books, four tags, six links, in `schema`.
    public static func seed(_ schema: String) -> [String] {
        [
            "INSERT INTO \(schema).book (id, title, note) SELECT i, 'book ' || i, CASE WHEN i % 2 = 0 THEN 'note' END FROM generate_series(1, 6) AS i",
            "INSERT INTO \(schema).tag (id, word) SELECT i, 'tag ' || i FROM generate_series(1, 4) AS i",
            "INSERT INTO \(schema).book_tags (book_id, tag_id) VALUES (1, 1), (1, 2), (2, 2), (3, 3), (4, 4), (5, 1)",
        ]
    }

    /// While the run catches up (`S.` the tenant's schema): a link added, one removed, one moved
    /// to another tag.
    public static let catchUpWrites = [
        "INSERT INTO S.book_tags (book_id, tag_id) VALUES (6, 3)",
        "DELETE FROM S.book_tags WHERE book_id = 1 AND tag_id = 2",
        "UPDATE S.book_tags SET tag_id = 4 WHERE book_id = 3 AND tag_id = 3",
    ]

    /// The links' archive entries at v2 (`%@` the schema), and what they must be after the writes.
    public static let entries = "SELECT row_key FROM %@._tm_archive WHERE table_name = 'book_tags' ORDER BY row_key"
    public static let expectedEntries = ["{1,1}", "{2,2}", "{3,4}", "{4,4}", "{5,1}", "{6,3}"]

    /// The links back at v1, and what they must be.
    public static let links = "SELECT book_id || '-' || tag_id FROM %@.book_tags ORDER BY book_id, tag_id"
    public static let expectedLinks = ["1-1", "2-2", "3-4", "4-4", "5-1", "6-3"]
}
