import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A step that gives a to-one back from the archive (a way down, or a way up again) checks that
/// the row the link names is there. Online, when the app changes the row holding the link while
/// the run catches up, the round's delta has that row, and now the row its archived link names
/// too: the link comes back as offline. Before, the delta held only the rows the source version's
/// own foreign keys name, so the link's row was missing there: the link stayed NULL and its entry
/// was left superseded, where offline gave it back. The generated online round trips
/// (`OnlineRoundTripPropertyTests`, family 58 of seed 4242) found it.
@Suite("Online runs give back an archived link of a row the app changes", .serialized)
struct OnlineRunArchivedLinkTests {
    static let v1 = """
        entities:
          Book:
            attributes:
              title: { type: string }
              note: { type: string, optional: true }
            relationships:
              shelf: { destination: Shelf, optional: true }
          Shelf:
            attributes:
              label: { type: string }
        """
    /// The link and `note` go (archived).
    static let v2 = """
        entities:
          Book:
            attributes:
              title: { type: string }
          Shelf:
            attributes:
              label: { type: string }
        """

    /// Tenants `online` and `twin` of `family` (its v1 is ``v1``), four books on three shelves,
    /// both moved to v2 offline.
    static func booksAtV2(_ conninfo: String, _ family: OnlineFamilyDirectory, logger: String) async throws -> (TenantMigrator, Connection) {
        let (migrator, connection) = try await OnlineTwins.make(conninfo, family, logger: logger) { connection, schema in
            for statement in [
                "INSERT INTO \(schema).shelf (id, label) SELECT i, 'shelf ' || i FROM generate_series(1, 3) AS i",
                "INSERT INTO \(schema).book (id, title, note, shelf_id) VALUES (1, 'a', 'x', 1), (2, 'b', NULL, 2), (3, 'c', 'z', NULL), (4, 'd', 'w', 3)",
            ] { try connection.execute(unsafeSQL: statement) }
        }
        for name in ["online", "twin"] {
            let up = try await migrator.migrate(tenant: name, MigrationRequest(.move, to: "v2", allowDestructive: true))
            #expect(up.outcome == .migrated, "\(up.error ?? "")")
        }
        return (migrator, connection)
    }

    /// Each book as `id title note shelf` (`%@` the schema).
    static let books = "SELECT id || ' ' || title || ' ' || coalesce(note, '∅') || ' ' || coalesce(shelf_id::text, '∅') FROM %@.book ORDER BY id"

    @Test func theLinkOfABookTheAppRetitlesComesBackAsOffline() async throws {
        let family = try OnlineFamilyDirectory("Library", versions: [("v1", Self.v1), ("v2", Self.v2)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await Self.booksAtV2(conninfo, family, logger: "OnlineArchivedLink")
            // Back to v1 online while the app retitles books 2 and 4 (links to shelves 2 and 3).
            let writes = ["UPDATE S.book SET title = 'b2' WHERE id = 2", "UPDATE S.book SET title = 'd2' WHERE id = 4"]
            try await OnlineTwins.migrate(migrator, conninfo, to: "v1", writes: [.catchingUp: writes], batchRows: 2)
            for schema in OnlineTwins.schemas {
                let books = try connection.column(String(format: Self.books, schema), as: String.self)
                #expect(books == ["1 a x 1", "2 b2 ∅ 2", "3 c z ∅", "4 d2 w 3"], "\(schema)")
                let superseded = try connection.column("SELECT row_id || ' ' || column_name FROM \(schema)._tm_archive WHERE superseded ORDER BY 1", as: String.self)
                #expect(superseded.isEmpty, "\(schema): superseded entries \(superseded)")
            }
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
        }
    }

    /// v1 without shelves: the entity removed (its rows archived whole, each book's link too).
    static let withoutShelves = """
        entities:
          Book:
            attributes:
              title: { type: string }
              note: { type: string, optional: true }
        """

    /// The link names a row the way down gives back whole (no source table holds shelves): the
    /// round's delta now holds that row's archive entries, so the delta's step gives the row back
    /// and then the link, as offline. Before, the delta had only the entries of source rows: the
    /// retitled book's link was left superseded and NULL (`OnlineRoundTripPropertyTests`, family 48
    /// of seed 777).
    @Test func theLinkOfABookTheAppRetitlesToAShelfGivenBackWholeComesBackAsOffline() async throws {
        let family = try OnlineFamilyDirectory("Library", versions: [("v1", Self.v1), ("v2", Self.withoutShelves)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await Self.booksAtV2(conninfo, family, logger: "OnlineArchivedRowLink")
            try await OnlineTwins.migrate(migrator, conninfo, to: "v1", writes: [.catchingUp: ["UPDATE S.book SET title = 'b2' WHERE id = 2"]], batchRows: 2)
            for schema in OnlineTwins.schemas {
                let books = try connection.column(String(format: Self.books, schema), as: String.self)
                #expect(books == ["1 a x 1", "2 b2 ∅ 2", "3 c z ∅", "4 d w 3"], "\(schema)")
                #expect(try connection.column("SELECT id || ' ' || label FROM \(schema).shelf ORDER BY id", as: String.self) == ["1 shelf 1", "2 shelf 2", "3 shelf 3"])
                let superseded = try connection.column("SELECT row_id || ' ' || column_name FROM \(schema)._tm_archive WHERE superseded ORDER BY 1", as: String.self)
                #expect(superseded.isEmpty, "\(schema): superseded entries \(superseded)")
            }
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
        }
    }
}
