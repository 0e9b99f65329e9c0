import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30, class 5: where the way back derives a dropped value from other rows (the text of a
/// post's latest Comment, the names of its Tags through a many-to-many), an app change to those
/// rows after the way up wins exactly as a change to the row itself would: the way back's value
/// stands, and the archived value it replaces is kept, superseded, and counted. Without a change,
/// every value comes back. Along single steps and along a path of several pairs.
@Suite("Archive: app changes made through other rows")
struct OtherRowsTests {
    /// Post 1 holds what the way back derives; post 2 holds other values; post 3 holds NULLs and has
    /// neither comments nor tags.
    static let rows = """
        INSERT INTO {schema}.post (id, title, latest, tag_names) VALUES (1, 'p1', 'b', 'a,b'), (2, 'p2', 'stale', 'old'), (3, 'p3', NULL, NULL);
        INSERT INTO {schema}.comment (id, text, post_id) VALUES (1, 'a', 1), (2, 'b', 1), (3, 'x', 2), (4, 'y', 2);
        INSERT INTO {schema}.tag (id, name) VALUES (1, 'a'), (2, 'b');
        INSERT INTO {schema}.post_tags (post_id, tag_id) VALUES (1, 1), (1, 2), (2, 1), (2, 2);
        """
    static let posts = "SELECT id::text, title, latest, tag_names FROM {schema}.post ORDER BY id"
    static let superseded = "SELECT column_name, row_id::text, value FROM {schema}._tm_archive WHERE superseded ORDER BY column_name, row_id"

    /// The app edits post 2's latest comment, moves post 1's latest comment to post 3, and unlinks
    /// post 2 from tag b.
    static let appChanges = """
        UPDATE {schema}.comment SET text = 'y2' WHERE id = 4;
        UPDATE {schema}.comment SET post_id = 3 WHERE id = 2;
        DELETE FROM {schema}.post_tags WHERE post_id = 2 AND tag_id = 2;
        """
    static let afterAppChanges: [[String?]] = [["1", "p1", "a", "a,b"], ["2", "p2", "y2", "a"], ["3", "p3", "b", nil]]

    /// The tenant `acme` at v1 with ``rows``.
    func tenant(_ conninfo: String) async throws -> (migrator: TenantMigrator, connection: Connection, schema: String) {
        let (migrator, connection, schema) = try await fixtureTenant("OtherRows", conninfo, insert: "SELECT 1")
        try connection.fixtureScript(sql(Self.rows, schema))
        return (migrator, connection, schema)
    }

    func sql(_ text: String, _ schema: String) -> String { text.replacingOccurrences(of: "{schema}", with: schema) }

    @Test(arguments: [false, true])
    func withoutAppChangesEveryValueComesBack(fused: Bool) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await tenant(conninfo)
            let before = try connection.rows(sql(Self.posts, schema))
            if fused {
                _ = try await migrator.migrate(tenant: "acme", to: "v3")
                _ = try await migrator.rollback(tenant: "acme", to: "v1")
            } else {
                _ = try await migrator.migrate(tenant: "acme", to: "v2")
                _ = try await migrator.rollback(tenant: "acme", to: "v1")
            }
            #expect(try connection.rows(sql(Self.posts, schema)) == before)
            #expect(try connection.rows(sql(Self.superseded, schema)) == [])
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// The app's changes (``appChanges``), then a rollback to v1: the posts are as the app left
    /// them, and post 2's two archived values are kept as superseded.
    func expectAppChangesWin(_ migrator: TenantMigrator, _ connection: Connection, _ schema: String,
                             sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        try connection.fixtureScript(sql(Self.appChanges, schema))
        let down = try await migrator.rollback(tenant: "acme", to: "v1")
        #expect(try connection.rows(sql(Self.posts, schema)) == Self.afterAppChanges, sourceLocation: sourceLocation)
        #expect(try connection.rows(sql(Self.superseded, schema)) == [["latest", "2", "stale"], ["tag_names", "2", "old"]], sourceLocation: sourceLocation)
        #expect(down.statistics.supersededEntries == 2, sourceLocation: sourceLocation)
    }

    @Test func anAppChangeToOtherRowsWinsAlongASingleStep() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await tenant(conninfo)
            let up = try await migrator.migrate(tenant: "acme", to: "v2")
            // The way up proved both columns: only post 2's values are archived.
            #expect(try connection.rows(sql("SELECT column_name, row_id::text, value FROM {schema}._tm_archive WHERE row_id > 0 ORDER BY 1, 2", schema))
                == [["latest", "2", "stale"], ["tag_names", "2", "old"]], "\(up)")
            try await expectAppChangesWin(migrator, connection, schema)
        }
    }

    /// v1 → v3 in one call crosses v1 → v2, whose way back derives the dropped values: that pair
    /// runs as a step of its own (a fused step could not prove, and would archive every value with
    /// nothing to tell the app's changes by), so the app's changes win as along single steps.
    @Test func anAppChangeToOtherRowsWinsAlongAPathOfSeveralPairs() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await tenant(conninfo)
            #expect(try migrator.plan(from: "v1", to: "v3").steps.map { "\($0.source.name) → \($0.destination.name)" } == ["v1 → v2", "v2 → v3"])
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            try await expectAppChangesWin(migrator, connection, schema)
        }
    }

    /// `rollback --rehearse` after the app's changes: the rehearsal says which archived values the
    /// app's changes (to the other rows) superseded and what the way back proved, in text and JSON,
    /// and changes nothing.
    @Test func aRehearsalReportsWhatTheArchiveShows() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await tenant(conninfo)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            try connection.fixtureScript(sql(Self.appChanges, schema))
            func run(_ arguments: [String]) async throws -> TenantMigrateExecutable.Output {
                try await TenantMigrateExecutable.run(arguments, database: conninfo, migrations: fixture("OtherRows"))
            }
            let text = try await run(["rollback", "--tenant", "acme", "--to", "v1", "--rehearse"])
            #expect(text.status == 0 && text.stdout.contains("2 archived values superseded by the app's changes")
                && text.stdout.contains("2 columns proved by the way back"), "\(text.stdout)\n\(text.stderr)")
            let json = try await run(["rollback", "--tenant", "acme", "--to", "v1", "--rehearse", "--json"])
            #expect(json.status == 0 && json.stdout.contains("supersededEntries") && json.stdout.contains("provedColumns"),
                    "\(json.stdout)\n\(json.stderr)")
            #expect(try connection.rows(sql("SELECT count(*)::text FROM {schema}._tm_archive WHERE superseded", schema)) == [["0"]])
        }
    }
}
