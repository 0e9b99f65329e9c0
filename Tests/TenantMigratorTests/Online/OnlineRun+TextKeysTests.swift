import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Online runs of entities keyed by text, `char(n)`, `uuid`, a composite of a bigint link and
/// text, and one of a `date` and a `char(3)`: the change capture logs each key's text, catch-up
/// finds the rows again by that text cast back to the key's types. While the app inserts, updates
/// (keys included) and deletes rows at every phase, with keys whose text is tricky (a `char(n)`'s
/// padding, commas, braces, quotes, backslashes, `'NULL'`, `''`, unicode, a uuid in upper case,
/// a date written under the app's own `DateStyle`), the online tenant ends as its offline twin,
/// there and back: the same rows, the same archive, both verify clean.
@Suite("Online runs of entities keyed by text, uuid and composites", .serialized)
struct OnlineRunTextKeysTests {
    static let v1 = TextKeysFamily.model([
        TextKeysFamily.token, TextKeysFamily.country, TextKeysFamily.tag, TextKeysFamily.rate, TextKeysFamily.stock, TextKeysFamily.item(withNote: true),
    ])

    /// v2 drops a column of the uuid-keyed Token (archived by its key) and of Item, adds a
    /// check to Country and to Stock and a column to Tag and to Rate.
    static let v2 = v1
        .replacingOccurrences(of: "      note: { type: string, optional: true }\n  Country:", with: "  Country:")
        .replacingOccurrences(of: "      title: { type: string }\n      note: { type: string, optional: true }\n", with: "      title: { type: string }\n")
        .replacingOccurrences(of: "  Country:\n", with: "  Country:\n    checks:\n      - \"code <> 'ZZ'\"\n")
        .replacingOccurrences(of: "      weight: { type: int32, default: 0 }\n", with: "      weight: { type: int32, default: 0 }\n      color: { type: string, optional: true }\n")
        .replacingOccurrences(of: "      quantity: { type: int32, default: 0 }\n", with: "      quantity: { type: int32, default: 0, check: \"quantity >= 0\" }\n")
        .replacingOccurrences(of: "      amount: { type: \"numeric(12,4)\" }\n", with: "      amount: { type: \"numeric(12,4)\" }\n      source: { type: string, optional: true }\n")

    /// Keys whose text is tricky, as SQL literals.
    static let trickyNames = [
        "'a,b'", "'{braces}'", #"'quo"te'"#, #"E'back\\slash'"#, "'NULL'", "''", "'ünï€ 😀'", "' lead'", "'trail '", "'it''s'", #"'{"x":1}'"#,
    ]

    /// Each tenant's rows: 40 tags, tokens, items, stock and rates generated from their numbers
    /// (no randomness), the tricky tags, and countries with a one-letter (padded) code.
    static func seed(_ connection: Connection, _ schema: String) throws {
        try connection.fixtureScript("""
            INSERT INTO \(schema).tag (name, weight) SELECT 'tag ' || i, i FROM generate_series(1, 40) AS i;
            INSERT INTO \(schema).tag (name, weight) VALUES \(trickyNames.enumerated().map { "(\($1), \($0 + 100))" }.joined(separator: ", "));
            INSERT INTO \(schema).token (id, label, note)
                SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, 'token ' || i, 'note ' || i FROM generate_series(1, 30) AS i;
            INSERT INTO \(schema).country (code, name) VALUES ('DE', 'Germany'), ('FR', 'France'), ('A', 'Padded'), ('b', 'lower');
            INSERT INTO \(schema).item (title, note) SELECT 'item ' || i, 'note ' || i FROM generate_series(1, 20) AS i;
            INSERT INTO \(schema).stock (item_id, warehouse, quantity)
                SELECT i, w, i FROM generate_series(1, 20) AS i, unnest(ARRAY['north', 'south,east', '{x}', '']) AS w;
            INSERT INTO \(schema).rate (day, currency, amount)
                SELECT DATE '2026-01-01' + i, c, i * 1.25 FROM generate_series(0, 9) AS i, unnest(ARRAY['EUR', 'US', 'X']) AS c
            """)
    }

    /// The app's writes on v1's columns, at each phase of the way up.
    static let writesUp: [OnlinePhase: [String]] = [
        .copying: [
            // A uuid given in upper case, a padded char key, tricky text keys, a composite key with
            // a comma, a date key under another DateStyle.
            "INSERT INTO S.token (id, label, note) VALUES ('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'upper', 'UP')",
            "UPDATE S.token SET note = 'changed' WHERE id = '00000000-0000-4000-8000-00000000000A'",
            "INSERT INTO S.country (code, name) VALUES ('C ', 'padded too')",
            "UPDATE S.country SET name = 'Padded!' WHERE code = 'A '",
            "INSERT INTO S.tag (name, weight) VALUES ('new, {one}', 1), (E'tab\\there', 2)",
            #"UPDATE S.tag SET weight = 7 WHERE name = 'quo"te'"#,
            "INSERT INTO S.stock (item_id, warehouse, quantity) VALUES (3, 'west,\"1\"', 9)",
            "SET DateStyle = 'SQL, DMY'",
            "INSERT INTO S.rate (day, currency, amount) VALUES ('31/12/2025', 'EUR', 3.5)",
            "UPDATE S.rate SET amount = 99.9999 WHERE day = '02/01/2026' AND currency = 'US'",
            "RESET DateStyle",
        ],
        .built: [
            // Keys changed by the app.
            "UPDATE S.tag SET name = 'renamed {a,b}' WHERE name = 'a,b'",
            "UPDATE S.tag SET name = 'NULL ' WHERE name = 'NULL'",
            "UPDATE S.country SET code = 'D' WHERE code = 'b'",
            "UPDATE S.token SET id = 'B0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A22', note = 'moved' WHERE id = '00000000-0000-4000-8000-000000000002'",
            "UPDATE S.stock SET warehouse = 'north ' WHERE item_id = 1 AND warehouse = 'north'",
            "UPDATE S.stock SET item_id = 20, warehouse = '{y}' WHERE item_id = 2 AND warehouse = '{x}'",
            "UPDATE S.rate SET day = day + 100 WHERE currency = 'X' AND day = DATE '2026-01-03'",
            "DELETE FROM S.tag WHERE name = ''",
            "INSERT INTO S.tag (name) VALUES ('')",
        ],
        .catchingUp: [
            "DELETE FROM S.token WHERE id = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'",
            "DELETE FROM S.country WHERE code = 'C'",
            #"UPDATE S.tag SET weight = weight + 1 WHERE name IN ('{braces}', E'back\\slash', 'ünï€ 😀', ' lead', 'trail ', 'it''s', '{"x":1}')"#,
            "DELETE FROM S.stock WHERE warehouse = 'south,east' AND item_id < 5",
            "UPDATE S.item SET note = 'late' WHERE id = 7",
            "UPDATE S.token SET note = NULL WHERE id = '00000000-0000-4000-8000-000000000003'",
            "DELETE FROM S.rate WHERE currency = 'US' AND day > DATE '2026-01-08'",
        ],
    ]

    /// The app's writes on v2's columns, at each phase of the way back.
    static let writesDown: [OnlinePhase: [String]] = [
        .copying: [
            "INSERT INTO S.token (id, label) VALUES ('C0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A33', 'down')",
            "UPDATE S.tag SET color = 'red' WHERE name = 'renamed {a,b}'",
            "INSERT INTO S.country (code, name) VALUES ('E ', 'Eh')",
        ],
        .catchingUp: [
            "UPDATE S.tag SET name = 'back, again' WHERE name = '{braces}'",
            "UPDATE S.token SET id = '00000000-0000-4000-8000-0000000000F1' WHERE id = '00000000-0000-4000-8000-000000000004'",
            "UPDATE S.rate SET source = 'ecb' WHERE currency = 'EUR'",
            "DELETE FROM S.stock WHERE item_id = 3",
        ],
    ]

    @Test func entitiesKeyedByTextUuidAndCompositesMigrateOnlineAsOfflineThereAndBack() async throws {
        let family = try OnlineFamilyDirectory("TextKeys", versions: [("v1", Self.v1), ("v2", Self.v2)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await OnlineTwins.make(conninfo, family, logger: "OnlineTextKeys", seed: Self.seed)
            let plan = try await migrator.planDocument(tenant: "online", to: "v2")
            #expect(plan.onlineRefusal == nil, "\(String(describing: plan.onlineRefusal))")

            let online = try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: Self.writesUp, batchRows: 3)
            try Self.expectTwins(connection, "v1 → v2")
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
            // The uuid-keyed token's notes are archived by key, the app's last ones included.
            #expect(try connection.scalar("SELECT count(*)::int FROM tenant_online._tm_archive WHERE table_name = 'token' AND row_key IS NOT NULL AND row_id = 0",
                                          as: Int.self) > 0)

            try await OnlineTwins.migrate(online, conninfo, to: "v1", writes: Self.writesDown, batchRows: 3)
            try Self.expectTwins(connection, "v2 → v1")
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
            // The notes came back by key, as the app left them, under a key the app changed at v1 too.
            #expect(try connection.scalar("SELECT note FROM tenant_online.token WHERE id = 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a22'", as: String?.self) == "moved")
            #expect(try connection.scalar("SELECT note FROM tenant_online.token WHERE id = '00000000-0000-4000-8000-00000000000a'", as: String?.self) == "changed")
            #expect(try connection.scalar("SELECT count(*)::int FROM tenant_online.tag WHERE name IN ('NULL ', '', 'back, again', 'renamed {a,b}')", as: Int.self) == 4)
        }
    }

    /// The online tenant and its twin have the same rows and the same archive entries.
    static func expectTwins(_ connection: Connection, _ what: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let rows = try OnlineTwins.schemas.map { try connection.userData(of: $0) }
        #expect(rows[0] == rows[1], "\(what): rows of \(rows[0].keys.filter { rows[0][$0] != rows[1][$0] }.sorted()) differ", sourceLocation: sourceLocation)
        let archives = try OnlineTwins.schemas.map { try archive(of: $0, on: connection) }
        let onlyOnline = archives[0].filter { !archives[1].contains($0) }, onlyOffline = archives[1].filter { !archives[0].contains($0) }
        #expect(archives[0] == archives[1], "\(what): archive only online \(onlyOnline), only offline \(onlyOffline)", sourceLocation: sourceLocation)
    }

    /// A tenant's archive entries, each as one line (the instants they were made at aside).
    static func archive(of schema: String, on connection: Connection) throws -> [String] {
        guard try connection.scalar("SELECT to_regclass($1) IS NOT NULL", [schema + "._tm_archive"], as: Bool.self) else { return [] }
        return try connection.column("""
            SELECT concat_ws(' | ', step_from, step_to, table_name, column_name, row_id, row_key, value, left_value, superseded)
            FROM \(connection.quoteIdentifier(schema))._tm_archive ORDER BY 1
            """, as: String.self)
    }

    /// A key of a type whose text the capture cannot promise to cast back (floating point, an
    /// enum of the model) is refused online before anything is touched, naming the entity and its
    /// key, and `plan` says so; offline the tenant migrates.
    @Test func aKeyOfATypeTheCaptureCannotLogIsRefusedNamingIt() async throws {
        let v1 = """
            entities:
              Reading:
                key: [at]
                attributes:
                  at: { type: double }
                  value: { type: int32 }
            """
        // (A rewrite, which needs the shadow; a column added alone runs in the catalog only.)
        let v2 = v1.replacingOccurrences(of: "value: { type: int32 }", with: "value: { type: int64 }")
        try await OnlineFamilyDirectory.withMigrator("FloatKey", versions: [("v1", v1), ("v2", v2)], logger: "OnlineTextKeys") { migrator, connection, _ in
            _ = try await migrator.createTenant("lab", version: "v1")
            try connection.fixtureScript("INSERT INTO tenant_lab.reading (at, value) VALUES (0.1, 1), (2.5, 2)")
            let refusal = "entity Reading (table reading) is keyed by (at double precision), and the change capture cannot log a key of double precision (at)"
            let plan = try await migrator.planDocument(tenant: "lab", to: "v2")
            #expect(plan.onlineRefusal?.contains(refusal) == true, "\(String(describing: plan.onlineRefusal))")
            await #expect {
                _ = try await migrator.migrate(tenant: "lab", MigrationRequest(.move, to: "v2", online: .on))
            } throws: { error in
                "\(error)".contains(refusal)
            }
            #expect(try connection.tenantVersions()["lab"]?.version == "v1")
            let offline = try await migrator.migrate(tenant: "lab", MigrationRequest(.move, to: "v2"))
            #expect(offline.outcome == .migrated)
        }
    }
}
