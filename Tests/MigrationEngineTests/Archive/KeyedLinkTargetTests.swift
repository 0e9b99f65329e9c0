import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34 (attack): a link into an entity with a natural key points, once restored, at the row
/// it pointed at — not at a row the app made since under the same key (fixture family
/// KeyedLinkTarget; issue 30's first class, "a restored link must point at the same thing").
@Suite("Archive: links into naturally keyed rows made anew")
struct KeyedLinkTargetTests {
    static let rows = """
        WITH people AS (INSERT INTO {schema}.person (handle, "full") VALUES ('ann', 'Ann Smith'), ('bob', 'Bob Jones'))
        INSERT INTO {schema}.post (title, author_id) VALUES ('p1', 'ann'), ('p2', 'bob')
        """

    /// At v2 the app renames ann to ann.smith and gives the handle ann to another person; the way
    /// down must not link p1 to that other person: it links p1 to Ann Smith (ann.smith), or leaves
    /// it unlinked with the archived value kept, superseded. (Seen failing: p1's author is
    /// "Ann Other", exit 0, "2 archived values given back", no warning; the entry is deleted.)
    @Test func aRestoredLinkDoesNotPointAtARowMadeAnewUnderItsKey() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedLinkTarget", conninfo, insert: Self.rows)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            try connection.execute(unsafeSQL: "UPDATE \(schema).person SET handle = 'ann.smith' WHERE handle = 'ann'")
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).person (handle, \"full\") VALUES ('ann', 'Ann Other')")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            let authors = try connection.rows("SELECT p.title, pe.\"full\" FROM \(schema).post AS p LEFT JOIN \(schema).person AS pe ON pe.handle = p.author_id ORDER BY p.title")
            #expect(authors[1] == ["p2", "Bob Jones"])
            let p1 = authors[0][1]
            let kept = try connection.scalar("SELECT count(*) FROM \(schema)._tm_archive WHERE superseded AND table_name = 'post'", as: Int64.self)
            // Open (issue 34, noted): a link into a table keyed by a natural key is restored by the
            // key's value, with no target to check it against (LinkTarget keeps one for integer ids
            // only). Recorded as a known issue, so this test fails the day it is fixed.
            withKnownIssue("a restored link into a naturally keyed row is not checked against what it pointed at") {
                #expect(p1 == "Ann Smith" || (p1 == nil && kept == 1), "p1's author: \(p1 ?? "none"), superseded entries: \(kept)")
            }
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
