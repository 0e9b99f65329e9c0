import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// An online run leaves every table's columns in the order the offline run leaves them: the
/// columns kept where the live table has them, the new ones appended as `ADD COLUMN` appends
/// them. An adopted tenant's tables (Rails-like here: the key after the timestamps, the foreign
/// key last) are not in the model's order (`id`, the attributes by name, the foreign keys), so a
/// shadow made in the model's order would leave the app's positional reads and writes (`SELECT *`,
/// `INSERT … VALUES` without columns, `COPY`) another table online than offline. A tenant made
/// from the model keeps the model's order, online as offline.
@Suite("Online runs keep the column order", .serialized)
struct OnlineRunColumnOrderTests {
    /// A tenant's tables as an app wrote them by hand, in schema `S`: the key of `posts` after
    /// its timestamps, `authors` with its key last.
    static let adopted = """
        CREATE SCHEMA S;
        CREATE TABLE S.authors (name text NOT NULL, id bigserial PRIMARY KEY);
        CREATE TABLE S.posts (title text NOT NULL, created_at timestamp(6) without time zone NOT NULL,
            updated_at timestamp(6) without time zone NOT NULL, id bigserial PRIMARY KEY, views integer NOT NULL DEFAULT 0, body text,
            author_id bigint REFERENCES S.authors (id));
        INSERT INTO S.authors (name) VALUES ('a1'), ('a2');
        INSERT INTO S.posts (title, created_at, updated_at, views, body, author_id)
            SELECT 'p' || i, '2026-01-01'::timestamp + i * interval '1 hour', '2026-01-02', i, 'b' || i, 1 + i % 2 FROM generate_series(1, 12) AS i
        """

    /// The same rows in a tenant made from the model.
    static let rows = """
        INSERT INTO S.authors (name) VALUES ('a1'), ('a2');
        INSERT INTO S.posts (title, created_at, updated_at, views, body, author_id)
            SELECT 'p' || i, '2026-01-01'::timestamp + i * interval '1 hour', '2026-01-02', i, 'b' || i, 1 + i % 2 FROM generate_series(1, 12) AS i
        """

    /// The app's writes on the way up (v1's columns), at each phase.
    static let writesUp: [OnlinePhase: [String]] = [
        .copying: ["INSERT INTO S.posts (title, created_at, updated_at, views, body, author_id) VALUES ('c1', '2026-03-01', '2026-03-01', 7, 'cb', 2)",
                   "UPDATE S.authors SET name = 'a1x' WHERE name = 'a1'"],
        .built: ["UPDATE S.posts SET views = views + 100 WHERE title = 'p2'", "INSERT INTO S.authors (name) VALUES ('a3')"],
        .catchingUp: ["DELETE FROM S.posts WHERE title = 'p3'",
                      "INSERT INTO S.posts (title, created_at, updated_at, body, author_id) VALUES ('k1', '2026-03-02', '2026-03-02', 'kb', 3)"],
    ]

    /// The app's writes on the way down (v2's columns), at each phase.
    static let writesDown: [OnlinePhase: [String]] = [
        .copying: ["INSERT INTO S.posts (title, created_at, updated_at, summary) VALUES ('d1', '2026-04-01', '2026-04-01', 's')"],
        .catchingUp: ["UPDATE S.authors SET name = 'a2y' WHERE name = 'a2'", "UPDATE S.posts SET summary = 'k' WHERE title = 'p4'"],
    ]

    /// v1, imported from the adopted tables (`views` may narrow again on the way down), and v2:
    /// `views` widened to int64 (a rewrite: the step runs on a shadow), `body` dropped (archived),
    /// `summary` added (appended offline).
    static func versions(importedFrom schema: String, on connection: Connection) throws -> (v1: String, v2: String) {
        let imported = try SchemaImport.read(schema: schema, versionName: "v1", on: connection).version.yamlText()
        let views = "views: { type: int32, default: 0 }", body = "body: { type: string, optional: true }"
        try #require(imported.contains(views) && imported.contains(body), "\(imported)")
        let v1 = imported.replacingOccurrences(of: views, with: "views: { type: int32, default: 0, allowsNarrowing: true }")
        let lines = v1.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var v2: [String] = []
        for line in lines where !line.contains(body) {
            guard line.contains("views: {") else { v2.append(line); continue }
            let indent = String(line.prefix { $0 == " " })
            v2 += [line.replacingOccurrences(of: "int32", with: "int64"), indent + "summary: { type: string, optional: true }"]
        }
        return (v1, v2.joined(separator: "\n"))
    }

    /// Each table of `schema` (the migrator's own aside) with its columns in `attnum` order, dropped ones left out.
    static func columnOrder(_ connection: Connection, _ schema: String) throws -> [String] {
        try connection.column("""
            SELECT c.relname || ': ' || string_agg(a.attname, ', ' ORDER BY a.attnum) FROM pg_class c
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' AND c.relname NOT LIKE '\\_%' GROUP BY c.relname ORDER BY 1
            """, [schema], as: String.self)
    }

    /// Every row of `schema`'s tables as JSON objects (keys sorted, whatever the column order).
    static func values(_ connection: Connection, _ schema: String) throws -> [String] {
        try connection.column("SELECT to_jsonb(t)::text FROM \(schema).authors t UNION ALL SELECT to_jsonb(p)::text FROM \(schema).posts p ORDER BY 1", as: String.self)
    }

    /// The two tenants have their tables' columns in the same order, and the same rows.
    static func expectTwins(_ connection: Connection, _ what: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let orders = try OnlineTwins.schemas.map { try columnOrder(connection, $0) }
        #expect(orders[0] == orders[1], "\(what): online \(orders[0]), offline \(orders[1])", sourceLocation: sourceLocation)
        #expect(try values(connection, "tenant_online") == values(connection, "tenant_twin"), "\(what)", sourceLocation: sourceLocation)
    }

    @Test func anAdoptedTenantKeepsItsColumnOrderOnlineAsOfflineThereAndBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            for schema in OnlineTwins.schemas { try connection.fixtureScript(Self.adopted.replacingOccurrences(of: "S.", with: "\(schema).").replacingOccurrences(of: "SCHEMA S", with: "SCHEMA \(schema)")) }
            let (v1, v2) = try Self.versions(importedFrom: "tenant_online", on: connection)
            let family = try OnlineFamilyDirectory("Blog", versions: [("v1", v1), ("v2", v2)])
            defer { family.remove() }
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet("OnlineColumnOrder"))
            for name in ["online", "twin"] { _ = try await migrator.adoptTenant(name, schema: "tenant_\(name)") }
            let adopted = try Self.columnOrder(connection, "tenant_online")
            #expect(adopted == ["authors: name, id", "posts: title, created_at, updated_at, id, views, body, author_id"])

            let online = try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: Self.writesUp, batchRows: 5)
            try Self.expectTwins(connection, "v1 → v2")
            // As offline: the kept columns where they stood, `summary` appended.
            #expect(try Self.columnOrder(connection, "tenant_online") == ["authors: name, id", "posts: title, created_at, updated_at, id, views, author_id, summary"])
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)

            // Back down: `body` comes back, and the rollback puts `posts` (small) in model order, as offline.
            try await OnlineTwins.migrate(online, conninfo, to: "v1", writes: Self.writesDown, batchRows: 5)
            try Self.expectTwins(connection, "v2 → v1")
            #expect(try Self.columnOrder(connection, "tenant_online").first == "authors: name, id")
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
        }
    }

    /// A tenant made from the model (`tenant create`) has the model's order and keeps it, online as offline.
    @Test func aTenantMadeFromTheModelKeepsTheModelOrderOnlineAsOffline() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            try connection.fixtureScript(Self.adopted.replacingOccurrences(of: "S.", with: "shop.").replacingOccurrences(of: "SCHEMA S", with: "SCHEMA shop"))
            let (v1, v2) = try Self.versions(importedFrom: "shop", on: connection)
            let family = try OnlineFamilyDirectory("Blog", versions: [("v1", v1), ("v2", v2)])
            defer { family.remove() }
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet("OnlineColumnOrder"))
            try await OnlineTwins.create(migrator, connection) { connection, schema in
                try connection.fixtureScript(Self.rows.replacingOccurrences(of: "S.", with: "\(schema)."))
            }
            let model = ["authors: id, name", "posts: id, body, created_at, title, updated_at, views, author_id"]
            #expect(try Self.columnOrder(connection, "tenant_online") == model)

            let online = try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: Self.writesUp, batchRows: 5)
            try Self.expectTwins(connection, "v1 → v2")
            #expect(try Self.columnOrder(connection, "tenant_online") == ["authors: id, name", "posts: id, created_at, title, updated_at, views, author_id, summary"])
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)

            try await OnlineTwins.migrate(online, conninfo, to: "v1", writes: Self.writesDown, batchRows: 5)
            try Self.expectTwins(connection, "v2 → v1")
            #expect(try Self.columnOrder(connection, "tenant_online") == model)
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
        }
    }
}
