import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A way down gives archived links back where the rows they name are there, and keeps the others,
/// superseded. Online, the build gives them back over the rows as copied; when the app then
/// deletes a row they name while the run catches up, the shadow's foreign keys take the links
/// away with it, and the entries are now kept superseded, as the offline twin (which meets the
/// deletion first) keeps them. Before, they were gone: the build had used them, and catch-up only
/// ran the steps again for the changed rows of the source tables. The generated online round
/// trips (`OnlineRoundTripPropertyTests`, families 5, 23, 29, 45, 53 and 55 of seed 4242) found it.
@Suite("Online runs keep superseded the archived links of rows the app deletes", .serialized)
struct OnlineRunSupersededByDeletionTests {
    static let superseded = "SELECT table_name || ' ' || column_name || ' ' || row_id || ' ' || coalesce(row_key, '∅') FROM %@._tm_archive WHERE superseded ORDER BY 1"

    /// A dropped many-to-many's links (whole rows keyed by their pair) go back on the way down; the
    /// app deletes book 1 and tag 4 meanwhile.
    @Test func linksOfAJoinTableWhoseRowsTheAppDeletesAreKeptSuperseded() async throws {
        typealias Family = DroppedJoinTableFamily
        let family = try OnlineFamilyDirectory("Shelf", versions: Family.versions)
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await OnlineTwins.make(conninfo, family, logger: "OnlineSupersededLinks") { connection, schema in
                for statement in Family.seed(schema) { try connection.execute(unsafeSQL: statement) }
            }
            for name in ["online", "twin"] {
                let up = try await migrator.migrate(tenant: name, MigrationRequest(.move, to: "v2", allowDestructive: true))
                #expect(up.outcome == .migrated, "\(up.error ?? "")")
            }
            let writes = ["DELETE FROM S.book WHERE id = 1", "DELETE FROM S.tag WHERE id = 4"]
            try await OnlineTwins.migrate(migrator, conninfo, to: "v1", writes: [.catchingUp: writes], batchRows: 2)
            for schema in OnlineTwins.schemas {
                #expect(try connection.column(String(format: Family.links, schema), as: String.self) == ["2-2", "3-3", "5-1"], "\(schema): the links back at v1")
                let kept = try connection.column(String(format: Self.superseded, schema), as: String.self)
                #expect(kept == ["book note 1 ∅", "book_tags  0 {1,1}", "book_tags  0 {1,2}", "book_tags  0 {4,4}"], "\(schema): the links kept superseded \(kept)")
            }
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
        }
    }

    /// A dropped to-one (``OnlineRunArchivedLinkTests``' books and shelves) goes back on the way
    /// down; the app deletes shelf 2 meanwhile (book 2's).
    @Test func aLinkToARowTheAppDeletesIsKeptSuperseded() async throws {
        let family = try OnlineFamilyDirectory("Library", versions: [("v1", OnlineRunArchivedLinkTests.v1), ("v2", OnlineRunArchivedLinkTests.v2)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await OnlineRunArchivedLinkTests.booksAtV2(conninfo, family, logger: "OnlineSupersededLink")
            try await OnlineTwins.migrate(migrator, conninfo, to: "v1", writes: [.catchingUp: ["DELETE FROM S.shelf WHERE id = 2"]], batchRows: 2)
            for schema in OnlineTwins.schemas {
                let books = try connection.column(String(format: OnlineRunArchivedLinkTests.books, schema), as: String.self)
                #expect(books == ["1 a x 1", "2 b ∅ ∅", "3 c z ∅", "4 d w 3"], "\(schema)")
                #expect(try connection.column(String(format: Self.superseded, schema), as: String.self) == ["book shelf_id 2 ∅"], "\(schema): the link kept superseded")
            }
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
        }
    }

    static let withSpecials = """
        entities:
          Item:
            attributes:
              name: { type: string }
            relationships:
              parent: { destination: Item, optional: true }
          Special:
            parent: Item
            attributes:
              power: { type: int32, optional: true }
        """
    /// The sub-entity removed: its rows leave the root's table, archived whole.
    static let withoutSpecials = """
        entities:
          Item:
            attributes:
              name: { type: string }
            relationships:
              parent: { destination: Item, optional: true }
        """

    /// A whole row the way down gives back into a table the app keeps (a removed sub-entity's, in
    /// its root's), whose parent the app deletes meanwhile: the shadow's foreign key only cleared
    /// its link (SET NULL), so the row goes too, and its entries are kept superseded, as offline,
    /// which never gave it back (`OnlineRoundTripPropertyTests`, family 55 of seed 31337).
    @Test func aWholeRowWhoseParentTheAppDeletesIsNotGivenBackAsOffline() async throws {
        let family = try OnlineFamilyDirectory("Items", versions: [("v1", Self.withSpecials), ("v2", Self.withoutSpecials)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await OnlineTwins.make(conninfo, family, logger: "OnlineSupersededRow") { connection, schema in
                try connection.execute(unsafeSQL: "INSERT INTO \(schema).item (id, entity, name, parent_id, power) VALUES "
                    + "(1, 'Item', 'a', NULL, NULL), (2, 'Item', 'b', NULL, NULL), (3, 'Special', 'c', 2, 7), (4, 'Special', 'd', 1, 8)")
            }
            for name in ["online", "twin"] {
                let up = try await migrator.migrate(tenant: name, MigrationRequest(.move, to: "v2", allowDestructive: true))
                #expect(up.outcome == .migrated, "\(up.error ?? "")")
            }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v1", writes: [.catchingUp: ["DELETE FROM S.item WHERE id = 2"]], batchRows: 2)
            let superseded = "SELECT table_name || ' ' || column_name || ' ' || row_id FROM %@._tm_archive WHERE superseded ORDER BY 1"
            let twin = try connection.column(String(format: superseded, "tenant_twin"), as: String.self)
            for schema in OnlineTwins.schemas {
                let items = try connection.column("SELECT id || ' ' || entity || ' ' || name || ' ' || coalesce(parent_id::text, '∅') || ' ' || coalesce(power::text, '∅') "
                    + "FROM \(schema).item ORDER BY id", as: String.self)
                #expect(items == ["1 Item a ∅ ∅", "4 Special d 1 8"], "\(schema)")
                let kept = try connection.column(String(format: superseded, schema), as: String.self)
                #expect(kept == twin && kept.contains("item  3"), "\(schema): kept superseded \(kept), offline \(twin)")
            }
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
        }
    }
}
