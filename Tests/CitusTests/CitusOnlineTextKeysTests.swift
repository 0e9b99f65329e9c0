import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// On Citus, as on PostgreSQL (OnlineRunTextKeysTests): the capture inside the tenant's schema logs
/// the keys of tables keyed by text, a `uuid` and a (bigint, varchar) composite as text,
/// and catch-up on the worker finds the rows again by it, while the app inserts, updates (keys
/// included) and deletes rows with tricky keys during the copy and catch-up. The online tenant ends
/// with the rows of its twin, given the same writes and migrated offline, there and back. (Keys
/// that need STABLE casts, `char(n)`, dates and timestamps, are refused on Citus: docs/Citus.md.)
extension CitusTests {
    static let textKeysV1 = TextKeysFamily.model([TextKeysFamily.token, TextKeysFamily.tag, TextKeysFamily.stock, TextKeysFamily.item(withNote: false)])

    /// v2 drops the uuid-keyed Token's note (archived by its key) and adds a column to Tag.
    static let textKeysV2 = textKeysV1
        .replacingOccurrences(of: "      note: { type: string, optional: true }\n", with: "")
        .replacingOccurrences(of: "      weight: { type: int32, default: 0 }\n", with: "      weight: { type: int32, default: 0 }\n      color: { type: string, optional: true }\n")

    @Test func onCitusTablesKeyedByTextUuidAndCompositesMigrateOnlineAsOfflineThereAndBack() async throws {
        try await CitusFixture.with { fixture in
            try await Self.withFamily(fixture, "TextKeys", versions: [("v1", Self.textKeysV1), ("v2", Self.textKeysV2)]) { migrator in
                let names = fixture.names(2, "keyed"), schemas = names.map { "tenant_" + $0 }
                let connection = fixture.connection
                for (name, schema) in zip(names, schemas) {
                    _ = try await migrator.createTenant(name, version: "v1")
                    for statement in [
                        #"INSERT INTO S.tag (name, weight) VALUES ('a,b', 1), ('{braces}', 2), ('quo"te', 3), (E'back\\slash', 4), ('NULL', 5), ('', 6), ('ünï 😀', 7)"#,
                        #"INSERT INTO S.token (id, label, note) VALUES ('00000000-0000-4000-8000-000000000001', 'one', 'n1'), ('00000000-0000-4000-8000-00000000000a', 'ten', 'n10')"#,
                        #"INSERT INTO S.item (title) VALUES ('bolt'), ('nut')"#,
                        #"INSERT INTO S.stock (item_id, warehouse, quantity) VALUES (1, 'x,y', 1), (1, '{z}', 2), (2, 'x,y', 3)"#,
                    ] { _ = try connection.execute(unsafeSQL: statement.replacingOccurrences(of: "S.", with: schema + ".")) }
                }
                // Columns both versions have; each write's keys its own, the first ones changing keys.
                let app = AppWriter(conninfo: fixture.conninfo, schemas: schemas) { n in [
                    "INSERT INTO \(table: "tag") (name, weight) VALUES (\(bind: "app \(n), {\"q\"}"), \(bind: n))",
                    "UPDATE \(table: "tag") SET name = name || ' renamed' WHERE name IN ('a,b', '')",
                    "INSERT INTO \(table: "token") (id, label) VALUES (\(bind: String(format: "B0EEBC99-9C0B-4EF8-BB6D-%012X", n + 1))::uuid, \(bind: "app \(n)"))",
                    "UPDATE \(table: "token") SET label = \(bind: "seen \(n)") WHERE id = '00000000-0000-4000-8000-00000000000A'",
                    "DELETE FROM \(table: "stock") WHERE item_id = 1 AND warehouse = 'x,y'",
                    "UPDATE \(table: "stock") SET warehouse = 'x,y ' WHERE item_id = 2 AND warehouse = 'x,y'",
                ] }
                var online = migrator
                online.settings.online.batchRows = 2
                online.settings.online.checkpoint = { checkpoint in
                    if [.copying, .catchingUp].contains(checkpoint.phase) { try app.write() }
                }
                for version in ["v2", "v1"] {
                    let written = app.count
                    let result = try await online.migrate(tenant: names[0], MigrationRequest(.move, to: version, allowDestructive: true, online: .on))
                    #expect(result.outcome == .migrated && result.online?.mode == "shadow", "\(version): \(result)")
                    #expect(app.count > written, "\(version): no write during the run")
                    let offline = try await migrator.migrate(tenant: names[1], MigrationRequest(.move, to: version, allowDestructive: true))
                    #expect(offline.outcome == .migrated, "\(version): \(offline)")
                    let rows = try schemas.map { schema in
                        try ["tag", "token", "stock", "item"].map { table in
                            try connection.scalar("SELECT coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '') FROM \(schema).\(table) AS t", as: String.self)
                        }
                    }
                    #expect(rows[0] == rows[1], "\(version): online \(rows[0]), offline \(rows[1])")
                    for report in try await migrator.verify(tenants: names) { #expect(report.isClean, "\(version): \(report.differences.map(\.description))") }
                }
                #expect(try connection.scalar("SELECT note FROM \(schemas[0]).token WHERE id = '00000000-0000-4000-8000-000000000001'", as: String?.self) == "n1")
                #expect(try fixture.isDistributed(schemas[0]))
                #expect(try fixture.preparedTransactions() == 0)
            }
        }
    }

    /// A key that needs a STABLE cast (`char(2)`) is refused online on Citus before anything is
    /// touched, naming table and column, and `plan` says so; offline the tenant migrates.
    @Test func onCitusAKeyThatNeedsAStableCastIsRefusedNamingIt() async throws {
        let v1 = "entities:\n  Country:\n    key: [code]\n    attributes:\n      code: { type: char(2) }\n      size: { type: int32 }\n"
        // (A rewrite, which needs the shadow.)
        let v2 = v1.replacingOccurrences(of: "size: { type: int32 }", with: "size: { type: int64 }")
        try await CitusFixture.with { fixture in
            try await Self.withFamily(fixture, "CharKey", versions: [("v1", v1), ("v2", v2)]) { migrator in
                let tenant = fixture.names(1, "charkey")[0]
                _ = try await migrator.createTenant(tenant, version: "v1")
                _ = try fixture.connection.execute(unsafeSQL: "INSERT INTO tenant_\(tenant).country (code, size) VALUES ('DE', 1), ('A', 2)")
                let refusal = "on Citus catch-up cannot find rows by a key of character(2) yet (country.code)"
                let plan = try await migrator.planDocument(tenant: tenant, to: "v2")
                #expect(plan.onlineRefusal?.contains(refusal) == true, "\(String(describing: plan.onlineRefusal))")
                await #expect {
                    _ = try await migrator.migrate(tenant: tenant, MigrationRequest(.move, to: "v2", online: .on))
                } throws: { error in
                    "\(error)".contains(refusal)
                }
                let offline = try await migrator.migrate(tenant: tenant, MigrationRequest(.move, to: "v2"))
                #expect(offline.outcome == .migrated)
            }
        }
    }
}
