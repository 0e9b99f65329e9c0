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

    /// The two tenants have their tables' columns in the same order, and the same rows.
    static func expectTwins(_ connection: Connection, _ what: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let orders = try OnlineTwins.schemas.map { try RailsLikeBlog.columnOrder(of: $0, on: connection) }
        #expect(orders[0] == orders[1], "\(what): online \(orders[0]), offline \(orders[1])", sourceLocation: sourceLocation)
        let values = try OnlineTwins.schemas.map { try RailsLikeBlog.values(of: $0, on: connection) }
        #expect(values[0] == values[1], "\(what)", sourceLocation: sourceLocation)
    }

    @Test func anAdoptedTenantKeepsItsColumnOrderOnlineAsOfflineThereAndBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            for schema in OnlineTwins.schemas {
                for statement in ["CREATE SCHEMA \(schema)"] + RailsLikeBlog.tables(inSchema: schema) + RailsLikeBlog.rows(inSchema: schema) {
                    try connection.fixtureScript(statement)
                }
            }
            let (v1, v2) = try RailsLikeBlog.versions(importedFrom: "tenant_online", on: connection)
            let family = try OnlineFamilyDirectory("Blog", versions: [("v1", v1), ("v2", v2)])
            defer { family.remove() }
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet("OnlineColumnOrder"))
            for name in ["online", "twin"] { _ = try await migrator.adoptTenant(name, schema: "tenant_\(name)") }
            #expect(try RailsLikeBlog.columnOrder(of: "tenant_online", on: connection) == RailsLikeBlog.adoptedOrder)

            let online = try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: Self.writesUp, batchRows: 5)
            try Self.expectTwins(connection, "v1 → v2")
            // As offline: the kept columns where they stood, `summary` appended.
            #expect(try RailsLikeBlog.columnOrder(of: "tenant_online", on: connection) == ["authors: name, id", "posts: title, created_at, updated_at, id, views, author_id, summary"])
            // The app's positional write works in both, as before the run.
            for schema in OnlineTwins.schemas { try connection.fixtureScript("INSERT INTO \(schema).authors VALUES ('by position')") }
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)

            // Back down: `body` comes back, and the rollback puts `posts` (small) in model order, as offline.
            try await OnlineTwins.migrate(online, conninfo, to: "v1", writes: Self.writesDown, batchRows: 5)
            try Self.expectTwins(connection, "v2 → v1")
            #expect(try RailsLikeBlog.columnOrder(of: "tenant_online", on: connection) == ["authors: name, id", "posts: id, body, created_at, title, updated_at, views, author_id"])
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
        }
    }

    /// A tenant made from the model (`tenant create`) has the model's order and keeps it, online as offline.
    @Test func aTenantMadeFromTheModelKeepsTheModelOrderOnlineAsOffline() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            for statement in ["CREATE SCHEMA shop"] + RailsLikeBlog.tables(inSchema: "shop") { try connection.fixtureScript(statement) }
            let (v1, v2) = try RailsLikeBlog.versions(importedFrom: "shop", on: connection)
            let family = try OnlineFamilyDirectory("Blog", versions: [("v1", v1), ("v2", v2)])
            defer { family.remove() }
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet("OnlineColumnOrder"))
            try await OnlineTwins.create(migrator, connection) { connection, schema in
                for statement in RailsLikeBlog.rows(inSchema: schema) { try connection.fixtureScript(statement) }
            }
            let model = ["authors: id, name", "posts: id, body, created_at, title, updated_at, views, author_id"]
            #expect(try RailsLikeBlog.columnOrder(of: "tenant_online", on: connection) == model)

            let online = try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: Self.writesUp, batchRows: 5)
            try Self.expectTwins(connection, "v1 → v2")
            #expect(try RailsLikeBlog.columnOrder(of: "tenant_online", on: connection) == ["authors: id, name", "posts: id, created_at, title, updated_at, views, author_id, summary"])
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)

            try await OnlineTwins.migrate(online, conninfo, to: "v1", writes: Self.writesDown, batchRows: 5)
            try Self.expectTwins(connection, "v2 → v1")
            #expect(try RailsLikeBlog.columnOrder(of: "tenant_online", on: connection) == model)
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
        }
    }
}
