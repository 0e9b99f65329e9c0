import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// On Citus, the online run inside the tenant's schema leaves each table's columns where the
/// offline run leaves them, as on plain PostgreSQL (OnlineRunColumnOrderTests): its shadow
/// (`_tm_shadow_…`, next to the live tables) is made with the live tables' column order. It
/// leaves the adopted tenant's own names of its indexes and keys, and the comments on its indexes
/// and constraints, as the offline run does too.
extension CitusTests {
    /// An adopted distributed schema, Rails-like (``RailsLikeBlog``), migrated online v1 → v2 and
    /// back while the app writes during the copy and catch-up; its twin, given the same writes,
    /// offline. After each way both have their columns in the same order, the same rows, and the
    /// same indexes and keys by name (the tenant's own `pk_posts` and `index_posts_on_title`) with
    /// the same comments on them (``adoptedObjects(of:on:)``).
    @Test func onlineOnCitusAnAdoptedSchemaKeepsItsColumnOrderAsOfflineThereAndBack() async throws {
        try await CitusFixture.with { fixture in
            let connection = fixture.connection
            let tenant = fixture.names(1, "blog")[0], twin = fixture.names(1, "blogtwin")[0]
            let schemas = ["tenant_" + tenant, "tenant_" + twin]
            for schema in schemas {
                let ownNames = [
                    "ALTER INDEX \(schema).posts_pkey RENAME TO pk_posts", "CREATE INDEX index_posts_on_title ON \(schema).posts (title)",
                    "COMMENT ON INDEX \(schema).index_posts_on_title IS 'Titles, for the search'",
                    "COMMENT ON CONSTRAINT pk_posts ON \(schema).posts IS 'One row per post'",
                ]
                for statement in ["CREATE SCHEMA \(schema)"] + RailsLikeBlog.tables(inSchema: schema) + ownNames + ["SELECT citus_schema_distribute('\(schema)')"]
                    + RailsLikeBlog.rows(inSchema: schema) {
                    _ = try connection.execute(unsafeSQL: statement)
                }
            }
            try fixture.placeOnTheSameWorker(schemas[1], as: schemas[0])
            let (v1, v2) = try RailsLikeBlog.versions(importedFrom: schemas[0], on: connection)
            try await Self.withFamily(fixture, "Blog", versions: [("v1", v1), ("v2", v2)]) { migrator in
                for (name, schema) in zip([tenant, twin], schemas) { _ = try await migrator.adoptTenant(name, schema: schema) }
                #expect(try RailsLikeBlog.columnOrder(of: schemas[0], on: connection) == RailsLikeBlog.adoptedOrder)
                // Columns both versions have.
                let app = AppWriter(conninfo: fixture.conninfo, schemas: schemas) { n in [
                    "INSERT INTO \(table: "posts") (title, created_at, updated_at, author_id) VALUES (\(bind: "app \(n)"), '2026-03-01', '2026-03-01', 2)",
                    "UPDATE \(table: "authors") SET name = name || '!' WHERE id = 1",
                ] }
                var online = migrator
                online.settings.online.batchRows = 5
                online.settings.online.checkpoint = { checkpoint in
                    if [.copying, .catchingUp].contains(checkpoint.phase) { try app.write() }
                }
                for (version, expected) in [("v2", ["authors: name, id", "posts: title, created_at, updated_at, id, views, author_id, summary"]),
                                            ("v1", ["authors: name, id", "posts: id, body, created_at, title, updated_at, views, author_id"])] {
                    let written = app.count
                    let result = try await online.migrate(tenant: tenant, MigrationRequest(.move, to: version, allowDestructive: true, online: .on))
                    #expect(result.outcome == .migrated && result.online?.mode == "shadow", "\(version): \(result)")
                    #expect(app.count > written, "\(version): no write during the run")
                    let offline = try await migrator.migrate(tenant: twin, MigrationRequest(.move, to: version, allowDestructive: true))
                    #expect(offline.outcome == .migrated, "\(version): \(offline)")
                    let orders = try schemas.map { try RailsLikeBlog.columnOrder(of: $0, on: connection) }
                    #expect(orders[0] == orders[1], "\(version): online \(orders[0]), offline \(orders[1])")
                    #expect(orders[0] == expected, "\(version)")
                    #expect(try RailsLikeBlog.values(of: schemas[0], on: connection) == RailsLikeBlog.values(of: schemas[1], on: connection), "\(version)")
                    let objects = try schemas.map { try Self.adoptedObjects(of: $0, on: connection) }
                    #expect(objects[0] == objects[1], "\(version): online \(objects[0].filter { !objects[1].contains($0) }), offline \(objects[1].filter { !objects[0].contains($0) })")
                    #expect(objects[0].contains("posts index CREATE UNIQUE INDEX pk_posts ON S.posts USING btree (id)")
                            && objects[0].contains("posts constraint pk_posts comment One row per post"), "\(version): \(objects[0])")
                    for report in try await migrator.verify(tenants: [tenant, twin]) { #expect(report.isClean, "\(version): \(report.differences.map(\.description))") }
                }
                #expect(try fixture.isDistributed(schemas[0]))
                #expect(try fixture.preparedTransactions() == 0)
            }
        }
    }

    /// The indexes of `schema`'s tables by name and definition with their comments, and the
    /// comments on their constraints by name (the schema written `S`, the migrator's own aside).
    static func adoptedObjects(of schema: String, on connection: Connection) throws -> [String] {
        try connection.column("""
            SELECT c.relname || ' index ' || pg_get_indexdef(i.indexrelid) || coalesce(' comment ' || obj_description(i.indexrelid, 'pg_class'), '')
            FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = $1::regnamespace AND c.relname NOT LIKE '\\_%'
            UNION ALL
            SELECT c.relname || ' constraint ' || k.conname || ' comment ' || d.description
            FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_description d ON d.objoid = k.oid AND d.classoid = 'pg_constraint'::regclass
            WHERE c.relnamespace = $1::regnamespace AND c.relname NOT LIKE '\\_%'
            ORDER BY 1
            """, [schema], as: String.self).map { $0.replacingOccurrences(of: "\(schema).", with: "S.") }
    }
}
