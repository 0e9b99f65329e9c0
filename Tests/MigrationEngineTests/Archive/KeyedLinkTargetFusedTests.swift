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

    /// v3 → v1 in one call (its second pair, v2 → v1, drops the link); the app replaces ann at v1;
    /// v1 → v3 in one call must not link p1 to the other person: p1 stays unlinked, its archived
    /// `ann` kept, superseded, and counted.
    @Test func aLinkTheSecondPairOfAFusedWayDownArchivedDoesNotPointAtARowMadeAnew() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedLinkTargetFused", conninfo, version: "v3", insert: Self.rows)
            let down = try migrator.plan(from: "v3", to: "v1")
            #expect(down.steps.count == 1 && down.steps[0].isFused, "\(down.steps)")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            try Self.replaceAnn(connection, schema)
            let up = try migrator.plan(from: "v1", to: "v3")
            #expect(up.steps.count == 1 && up.steps[0].isFused, "\(up.steps)")
            let again = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect(try Self.links(connection, schema) == [["p1", nil], ["p2", "Bob Jones"]])
            #expect(try Self.superseded(connection, schema) == [["v2", "v1", "post", "author_id", "ann"]])
            #expect(again.statistics.supersededEntries == 1)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// v2 → v4 in one call (its second pair, v3 → v4, drops the link); the app replaces ann at v4;
    /// v4 → v2 in one call leaves p1 unlinked, and bob's link goes back.
    @Test func aLinkTheSecondPairOfAFusedWayUpArchivedDoesNotPointAtARowMadeAnew() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedLinkTargetFused", conninfo, version: "v2", insert: Self.rows)
            let up = try migrator.plan(from: "v2", to: "v4")
            #expect(up.steps.count == 1 && up.steps[0].isFused, "\(up.steps)")
            _ = try await migrator.migrate(tenant: "acme", to: "v4")
            try Self.replaceAnn(connection, schema)
            let down = try await migrator.rollback(tenant: "acme", to: "v2")
            #expect(try Self.links(connection, schema) == [["p1", nil], ["p2", "Bob Jones"]])
            #expect(try Self.superseded(connection, schema) == [["v3", "v4", "post", "author_id", "ann"]])
            #expect(down.statistics.supersededEntries == 1)
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
