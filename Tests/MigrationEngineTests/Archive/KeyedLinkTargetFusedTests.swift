import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30 (first class) along fused paths: a link into a keyed row archived by any pair of a fused
/// step, not only its first, is kept with what it pointed at, and goes back only to the row under
/// its key that is still that row (fixture family KeyedLinkTargetFused: Post.author → Person, key
/// [handle], only at v2 and v3; Post.subtitle only at v3 and v4).
@Suite("Archive: links into keyed rows archived by a later pair of a fused step")
struct KeyedLinkTargetFusedTests {
    static let rows = """
        WITH people AS (INSERT INTO {schema}.person (handle, "full") VALUES ('ann', 'Ann Smith'), ('bob', 'Bob Jones'))
        INSERT INTO {schema}.post (title, author_id) VALUES ('p1', 'ann'), ('p2', 'bob')
        """

    /// Each post's author, by what it points at now.
    static func links(_ connection: Connection, _ schema: String) throws -> [[String?]] {
        try connection.rows("SELECT p.title, pe.\"full\" FROM \(schema).post AS p LEFT JOIN \(schema).person AS pe ON pe.handle = p.author_id ORDER BY p.title")
    }

    static func superseded(_ connection: Connection, _ schema: String) throws -> [[String?]] {
        try connection.rows("SELECT step_from, step_to, table_name, column_name, value FROM \(schema)._tm_archive WHERE superseded ORDER BY 1, 2, 3, 4, 5")
    }

    /// The app renames ann to ann.smith and gives the handle ann to another person.
    static func replaceAnn(_ connection: Connection, _ schema: String) throws {
        try connection.execute(unsafeSQL: "UPDATE \(schema).person SET handle = 'ann.smith' WHERE handle = 'ann'")
        try connection.execute(unsafeSQL: "INSERT INTO \(schema).person (handle, \"full\") VALUES ('ann', 'Ann Other')")
    }

    /// A fused way in one call whose second pair drops the link (`start` → `end`), the app
    /// replacing ann at `end`, then the fused way back in one call must not link p1 to the other
    /// person: p1 stays unlinked, its archived `ann` kept (by `pair`), superseded, and counted;
    /// bob's link goes back.
    /// - v3 → v1 (its second pair, v2 → v1, drops the link), and v1 → v3;
    /// - v2 → v4 (its second pair, v3 → v4, drops the link), and v4 → v2.
    @Test(arguments: [("v3", "v1", ["v2", "v1"]), ("v2", "v4", ["v3", "v4"])])
    func aLinkTheSecondPairOfAFusedWayArchivedDoesNotPointAtARowMadeAnew(start: String, end: String, pair: [String?]) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedLinkTargetFused", conninfo, version: start, insert: Self.rows)
            let there = try migrator.plan(from: start, to: end)
            #expect(there.steps.count == 1 && there.steps[0].isFused, "\(there.steps)")
            try await walk(migrator, from: start, [end])
            try Self.replaceAnn(connection, schema)
            let back = try migrator.plan(from: end, to: start)
            #expect(back.steps.count == 1 && back.steps[0].isFused, "\(back.steps)")
            let returned = try #require(try await walk(migrator, from: end, [start]))
            #expect(try Self.links(connection, schema) == [["p1", nil], ["p2", "Bob Jones"]])
            #expect(try Self.superseded(connection, schema) == [pair + ["post", "author_id", "ann"]])
            #expect(returned.statistics.supersededEntries == 1)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// Where the app left the people alone, both links go back along the fused paths.
    @Test func linksIntoUnchangedRowsGoBackAlongFusedPaths() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedLinkTargetFused", conninfo, version: "v3", insert: Self.rows)
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).person (handle, \"full\") VALUES ('cy', 'Cy Young')")
            let again = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect(try Self.links(connection, schema) == [["p1", "Ann Smith"], ["p2", "Bob Jones"]])
            #expect(again.statistics.supersededEntries == 0)
            _ = try await migrator.migrate(tenant: "acme", to: "v4")
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            #expect(try Self.links(connection, schema) == [["p1", "Ann Smith"], ["p2", "Bob Jones"]])
            #expect(try Self.superseded(connection, schema) == [])
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// `migrate --rehearse` in the state of the first test reports the link it would not give back,
    /// and writes nothing.
    @Test func aRehearsalReportsTheLinkALaterPairWouldNotGiveBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedLinkTargetFused", conninfo, version: "v3", insert: Self.rows)
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            try Self.replaceAnn(connection, schema)
            let rehearsed = try await migrator.migrate(tenant: "acme", to: "v3", mode: .rehearse)
            #expect(rehearsed.outcome == .migrated && rehearsed.statistics.supersededEntries == 1, "\(rehearsed)")
            #expect(try Self.superseded(connection, schema) == [])
            #expect(try connection.scalar("SELECT count(*) FROM \(schema)._tm_archive WHERE column_name = 'author_id'", as: Int64.self) == 2)
        }
    }
}
