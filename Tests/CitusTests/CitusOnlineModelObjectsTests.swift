import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// Issue 33: `migrate --online` on Citus with keys generated otherwise than the standard identity
/// (a `bigserial`, an `integer` and a `bigint` identity `GENERATED ALWAYS`), and with the model's
/// own enum types and sequences, which the run inside the tenant's schema refuses (docs/Citus.md).
extension CitusTests {
    /// Books keyed by a `bigserial`, with a `note` a v2 may drop.
    static let booksV1 = """
        entities:
          Book:
            key: { type: bigserial }
            attributes:
              title: { type: string }
              note: { type: string, optional: true }
        """

    /// Books, and shelves and tags keyed by identities `GENERATED ALWAYS`, each with a `note`.
    static let keysV1 = booksV1 + """

          Shelf:
            key: { type: integer, identity: always }
            attributes:
              label: { type: string }
              note: { type: string, optional: true }
          Tag:
            key: { type: bigint, identity: always }
            attributes:
              word: { type: string }
              note: { type: string, optional: true }
        """

    /// Writes a family `name` with `versions` (and `mappings`, `Mappings/<name>.yaml`) into a new
    /// directory, runs `body` with a migrator of it on the fixture's catalog, and removes the directory.
    static func withFamily(_ fixture: CitusFixture, _ name: String, versions: [(String, String)], mappings: [(String, String)] = [],
                           _ body: (TenantMigrator) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("citus-\(name.lowercased())-\(UUID().uuidString)")
        let directory = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try "family: \(name)\nversions: [\(versions.map(\.0).joined(separator: ", "))]\n"
            .write(to: directory.appendingPathComponent("family.yaml"), atomically: true, encoding: .utf8)
        for (version, text) in versions {
            try text.write(to: directory.appendingPathComponent("\(version).yaml"), atomically: true, encoding: .utf8)
        }
        if !mappings.isEmpty {
            let folder = directory.appendingPathComponent("Mappings")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (mapping, text) in mappings { try text.write(to: folder.appendingPathComponent("\(mapping).yaml"), atomically: true, encoding: .utf8) }
        }
        try await body(try TenantMigrator(connectionString: fixture.conninfo, familyDirectory: directory, catalog: fixture.catalog, logger: quietLogger))
    }

    /// v1 → v2 (each table's `note` dropped, archived) online, with the app inserting rows into
    /// every table (keys drawn by each table's own sequence) and updating copied ones during the
    /// copy; a twin given the same writes migrates offline. Both end with the same layout, rows
    /// and archive, and the app's next row of each table takes the same id in both, past every id
    /// in use. Failed before with 428C9 at the copy: the shadow's `GENERATED ALWAYS` key refused
    /// the live rows' ids.
    @Test func onlineOnCitusMigratesSerialAndIdentityAlwaysKeysAndEndsAsOffline() async throws {
        try await CitusFixture.with { fixture in
            let v2 = Self.keysV1.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("note:") }.joined(separator: "\n")
            try await Self.withFamily(fixture, "Keys", versions: [("v1", Self.keysV1), ("v2", v2)]) { migrator in
                let tenant = fixture.names(1, "keys")[0], twin = fixture.names(1, "keystwin")[0]
                let schema = "tenant_" + tenant, twinSchema = "tenant_" + twin
                _ = try await migrator.createTenants([tenant, twin], version: "v1", jobs: 1)
                try fixture.placeOnTheSameWorker(twinSchema, as: schema)
                let seed = [
                    "INSERT INTO S.book (title, note) SELECT 'b' || i, 'n' || i FROM generate_series(1, 40) AS i",
                    "INSERT INTO S.shelf (label, note) SELECT 's' || i, 'n' || i FROM generate_series(1, 40) AS i",
                    "INSERT INTO S.tag (word, note) SELECT 't' || i, 'n' || i FROM generate_series(1, 40) AS i",
                ]
                for statement in seed {
                    for schema in [schema, twinSchema] { try fixture.connection.execute(unsafeSQL: statement.replacingOccurrences(of: "S.", with: schema + ".")) }
                }
                let app = AppWriter(conninfo: fixture.conninfo, schemas: [schema, twinSchema]) { n in [
                    "INSERT INTO \(table: "book") (title, note) VALUES (\(bind: "app \(n)"), 'a')",
                    "INSERT INTO \(table: "shelf") (label, note) VALUES (\(bind: "app \(n)"), 'a')",
                    "INSERT INTO \(table: "tag") (word, note) VALUES (\(bind: "app \(n)"), 'a')",
                    "UPDATE \(table: "shelf") SET label = label || '!' WHERE id = \(bind: .integer(Int64(n + 1)))",
                    "DELETE FROM \(table: "tag") WHERE id = \(bind: .integer(Int64(n + 10)))",
                ] }
                var online = migrator
                online.settings.online.batchRows = 15
                online.settings.online.checkpoint = { checkpoint in
                    if [.copying, .catchingUp].contains(checkpoint.phase) { try app.write() }
                }
                let result = try await online.migrate(tenant: tenant, MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
                #expect(result.outcome == .migrated)
                #expect(result.online?.mode == "shadow", "\(String(describing: result.online))")
                #expect(app.count >= 6, "\(app.count) writes during the copy")
                _ = try await migrator.migrate(tenant: twin, MigrationRequest(.move, to: "v2", allowDestructive: true))
                let connection = fixture.connection
                #expect(try connection.layout(of: schema) == connection.layout(of: twinSchema))
                for table in ["book", "shelf", "tag"] {
                    #expect(try connection.rows(of: schema, table) == connection.rows(of: twinSchema, table), "\(table)")
                }
                #expect(try connection.archiveEntries(of: schema) == connection.archiveEntries(of: twinSchema))
                #expect(try connection.relations(of: schema, like: "\\_tm\\_%").filter { !$0.hasPrefix("_tm_archive") }.isEmpty)
                for (table, column) in [("book", "title"), ("shelf", "label"), ("tag", "word")] {
                    var ids: [Int64] = []
                    for schema in [schema, twinSchema] {
                        ids.append(try connection.scalar("INSERT INTO \(schema).\(table) (\(column)) VALUES ('next') RETURNING id::bigint", as: Int64.self))
                    }
                    let used = try connection.scalar("SELECT max(id)::bigint FROM \(schema).\(table) WHERE \(column) <> 'next'", as: Int64.self)
                    #expect(ids[0] == ids[1] && ids[0] > used, "\(table): online and offline drew \(ids), ids in use up to \(used)")
                }
                #expect(try fixture.preparedTransactions() == 0)
            }
        }
    }

    /// A model with enum types or sequences of its own, or a serial key given options of its own
    /// sequence, is refused on Citus before anything is touched, with SQLSTATE 0A000 (feature not
    /// supported): the tenant stays at v1, with nothing of a run in its schema. `plan` names the
    /// same reason as the plan's online refusal.
    @Test(arguments: ["enums", "sequences", "serialoptions"])
    func onlineOnCitusRefusesTheModelsOwnEnumTypesAndSequencesWithASQLState(_ kind: String) async throws {
        try await CitusFixture.with { fixture in
            let v1 = kind == "serialoptions"
                ? """
                entities:
                  Label:
                    key: { type: bigserial }
                    attributes:
                      word: { type: string, optional: true }
                      note: { type: string, optional: true }
                """
                : kind == "enums"
                ? """
                enums:
                  order_status: [new, paid, shipped]
                entities:
                  Order:
                    attributes:
                      status: { type: "enum(order_status)", default: new }
                      note: { type: string, optional: true }
                """
                : """
                entities:
                  Label:
                    key: { type: bigint, defaultExpression: "nextval('obj_seq'::regclass)" }
                    attributes:
                      word: { type: string, optional: true }
                      note: { type: string, optional: true }
                sequences:
                  obj_seq: {}
                """
            // (A serial key's options come at v2: Citus refuses the ALTER SEQUENCE that gives a new
            // tenant's sequence its options, XX000, so no tenant on Citus starts with them.)
            let v2 = v1.replacingOccurrences(of: "\n      note: { type: string, optional: true }", with: "")
                .replacingOccurrences(of: "\n            note: { type: string, optional: true }", with: "")
                .replacingOccurrences(of: "key: { type: bigserial }", with: "key: { type: bigserial, start: 7, increment: 5 }")
            try await Self.withFamily(fixture, "Objects", versions: [("v1", v1), ("v2", v2)]) { migrator in
                let tenant = fixture.names(1, kind)[0], schema = "tenant_" + tenant
                _ = try await migrator.createTenant(tenant, version: "v1")
                // `plan` gives the same reason as its online refusal, before any run.
                let document = try await migrator.planDocument(tenant: tenant, to: "v2")
                let named = ["enums": "order_status", "sequences": "obj_seq", "serialoptions": "label.id"][kind]!
                #expect(document.onlineRefusal?.contains("on Citus") == true && document.onlineRefusal?.contains(named) == true,
                        "\(String(describing: document.onlineRefusal))")
                do {
                    _ = try await migrator.migrate(tenant: tenant, MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
                    Issue.record("\(kind): migrated online")
                } catch {
                    #expect(SQLState.of(error) == "0A000", "\(error)")
                    // (A serial key's options cannot change offline either: refused for any run.)
                    let refusal = kind == "serialoptions" ? "cannot run on Citus" : "cannot migrate online"
                    #expect("\(error)".contains(refusal) && "\(error)".contains(named), "\(error)")
                }
                let version = try fixture.connection.execute("SELECT version FROM \(id: fixture.catalog.schema).\(id: "tenants") WHERE name = \(bind: .text(tenant))", schema: "")
                    .first!.decode(String.self, at: 0)
                #expect(version == "v1")
                #expect(try fixture.connection.relations(of: schema, like: "\\_tm\\_%").isEmpty)
            }
        }
    }
}
