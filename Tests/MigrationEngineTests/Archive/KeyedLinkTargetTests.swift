import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30 (first class) for links into entities keyed otherwise than by an integer id (found by
/// issue 34's attack): a restored link points at the row it pointed at — the row under its key
/// that is still what it was — never at a row the app made since under the same key; where no
/// such row is, the link is not restored, its entry kept (superseded) and counted (fixture family
/// KeyedLinkTarget: a natural key, a uuid, and links from a composite-keyed entity).
@Suite("Archive: links into keyed rows made anew")
struct KeyedLinkTargetTests {
    static let tag1 = "00000000-0000-4000-8000-000000000001"
    static let tag2 = "00000000-0000-4000-8000-000000000002"
    static let rows = """
        WITH people AS (INSERT INTO {schema}.person (handle, "full") VALUES ('ann', 'Ann Smith'), ('bob', 'Bob Jones')),
        tags AS (INSERT INTO {schema}.tag (id, label) VALUES ('\(tag1)', 'news'), ('\(tag2)', 'howto')),
        posts AS (INSERT INTO {schema}.post (title, author_id, tag_id) VALUES ('p1', 'ann', '\(tag1)'), ('p2', 'bob', '\(tag2)'))
        INSERT INTO {schema}.line (invoice, line_no, author_id) VALUES ('i1', 1, 'ann'), ('i1', 2, 'bob')
        """

    /// Each post's author and tag, and each line's author, by what they point at now.
    static func links(_ connection: Connection, _ schema: String) throws -> [[String?]] {
        try connection.rows("SELECT p.title, pe.\"full\", t.label FROM \(schema).post AS p LEFT JOIN \(schema).person AS pe ON pe.handle = p.author_id "
            + "LEFT JOIN \(schema).tag AS t ON t.id = p.tag_id ORDER BY p.title")
            + connection.rows("SELECT l.invoice || '/' || l.line_no, pe.\"full\", NULL FROM \(schema).line AS l LEFT JOIN \(schema).person AS pe ON pe.handle = l.author_id ORDER BY l.line_no")
    }

    static func superseded(_ connection: Connection, _ schema: String) throws -> [[String?]] {
        try connection.rows("SELECT table_name, column_name, value FROM \(schema)._tm_archive WHERE superseded ORDER BY 1, 2, 3")
    }

    /// Runs `body` with tenant `acme` of KeyedLinkTarget, holding ``rows``, migrated to v2, where the
    /// app then ran `appChanges` (`{schema}` for the tenant's schema), on a new database.
    static func atV2(after appChanges: [String], _ body: (TenantMigrator, Connection, String) async throws -> Void) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenantMigratedToV2("KeyedLinkTarget", conninfo, insert: rows)
            for change in appChanges { try connection.execute(unsafeSQL: change.replacingOccurrences(of: "{schema}", with: schema)) }
            try await body(migrator, connection, schema)
        }
    }

    /// The app renames ann to ann.smith and gives the handle ann to another person.
    static let annsHandleGivenToAnother = [
        "UPDATE {schema}.person SET handle = 'ann.smith' WHERE handle = 'ann'",
        "INSERT INTO {schema}.person (handle, \"full\") VALUES ('ann', 'Ann Other')",
    ]

    /// At v2 the app renames ann to ann.smith and gives the handle ann to another person: the way
    /// down must not link p1 (nor line i1/1) to that other person. They stay unlinked, their
    /// archived `ann` kept, superseded, and counted. (Seen failing: p1's author was "Ann Other",
    /// exit 0, "archived values given back", no warning; the entry deleted.)
    @Test func aRestoredLinkDoesNotPointAtARowMadeAnewUnderItsKey() async throws {
        try await Self.atV2(after: Self.annsHandleGivenToAnother) { migrator, connection, schema in
            let down = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try Self.links(connection, schema) == [["p1", nil, "news"], ["p2", "Bob Jones", "howto"], ["i1/1", nil, nil], ["i1/2", "Bob Jones", nil]])
            #expect(try Self.superseded(connection, schema) == [["line", "author_id", "ann"], ["post", "author_id", "ann"]])
            #expect(down.statistics.supersededEntries == 2)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// `rollback --rehearse` in the same state reports the two links it would not give back
    /// (superseded, with the log's warning) and writes nothing: the archive keeps its entries, unmarked.
    @Test func aRehearsedRollbackReportsTheLinksItWouldNotGiveBack() async throws {
        try await Self.atV2(after: Self.annsHandleGivenToAnother) { migrator, connection, schema in
            let rehearsed = try await migrator.rollback(tenant: "acme", to: "v1", mode: .rehearse)
            #expect(rehearsed.outcome == .migrated && rehearsed.statistics.supersededEntries == 2, "\(rehearsed)")
            #expect(try Self.superseded(connection, schema) == [])
            #expect(try connection.scalar("SELECT count(*) FROM \(schema)._tm_archive WHERE column_name = 'author_id'", as: Int64.self) == 4)
        }
    }

    /// The app deletes a tag and makes another under the same uuid: p1 is not linked to it.
    @Test func aLinkByUUIDDoesNotPointAtARowMadeAnewUnderIt() async throws {
        try await Self.atV2(after: ["DELETE FROM {schema}.tag WHERE id = '\(Self.tag1)'", "INSERT INTO {schema}.tag (id, label) VALUES ('\(Self.tag1)', 'gossip')"]) { migrator, connection, schema in
            let down = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try Self.links(connection, schema) == [["p1", "Ann Smith", nil], ["p2", "Bob Jones", "howto"], ["i1/1", "Ann Smith", nil], ["i1/2", "Bob Jones", nil]])
            #expect(try Self.superseded(connection, schema) == [["post", "tag_id", Self.tag1]])
            #expect(down.statistics.supersededEntries == 1)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// Where the rows are what they were (the app changed other rows), every link goes back.
    @Test func linksIntoUnchangedRowsGoBack() async throws {
        try await Self.atV2(after: ["INSERT INTO {schema}.person (handle, \"full\") VALUES ('cy', 'Cy Young')",
                                    "UPDATE {schema}.tag SET label = 'tutorial' WHERE id = '\(Self.tag2)'"]) { migrator, connection, schema in
            let down = try await migrator.rollback(tenant: "acme", to: "v1")
            // (The renamed tag is not what p2 pointed at by its values: the link stays unlinked and kept.)
            #expect(try Self.links(connection, schema) == [["p1", "Ann Smith", "news"], ["p2", "Bob Jones", nil], ["i1/1", "Ann Smith", nil], ["i1/2", "Bob Jones", nil]])
            #expect(try Self.superseded(connection, schema) == [["post", "tag_id", Self.tag2]])
            #expect(down.statistics.supersededEntries == 1)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
