import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: declarative mapping models over entities keyed as adopted schemas key them (fixture
/// family KeyedMapping): a uuid-keyed Account transformed in place and copied into a new Profile
/// that keeps the account's uuid, a Country keyed by its text code transformed where a filter says,
/// and a Membership join table keyed by (account, group) given a value read through its links into
/// the uuid- and the text-keyed tables. Up, down, up again with the app's changes between, stepwise
/// and fused, rehearsed and by `check --round-trip`: every value comes back.
@Suite("Mappings: entities keyed by a uuid, a natural or a composite key")
struct KeyedMappingTests {
    static let a1 = "00000000-0000-4000-8000-000000000001", a2 = "6f1c2a3e-9b7d-4c5e-8f00-aabbccddeeff", a3 = "ffffffff-ffff-4fff-bfff-ffffffffffff"

    static let rows = """
        WITH accounts AS (INSERT INTO {schema}.account (id, name, plan, bio) VALUES
            ('\(a1)', 'O''Brien "ci"', ' Gold ', 'back\\slash' || chr(10) || 'line'),
            ('\(a2)', 'Ünïcødé ✓', 'GOLD', NULL),
            ('\(a3)', 'plain', 'silver', '')),
        countries AS (INSERT INTO {schema}.country (code, name) VALUES
            ('DE', 'Germany'), ('XX', 'Nowhere'), ('a''b "c"', 'Quotes'), ('x,y{z}', 'Braces'))
        INSERT INTO {schema}.membership (account_id, "group", role, country_id) VALUES
            ('\(a1)', 'admins', 'owner', 'DE'), ('\(a1)', 'a"b\\c', NULL, 'x,y{z}'),
            ('\(a2)', 'admins', 'x,y{z}', NULL), ('\(a3)', 'users', 'reader', 'XX')
        """

    static func version(_ name: String) throws -> ModelVersion {
        try ModelFamily.load(from: fixture("KeyedMapping")).version(named: name)!
    }

    /// Up: the mappings ran over the keys (each Profile keeps its account's uuid), down: v1 back
    /// exactly, then the app's changes at v1, up again (the mappings see them), the app's changes at
    /// v2 (a Profile's bio the down mapping carries back), and down again: the app's state, exactly.
    @Test func upDownAndUpAgainWithTheAppsChangesBetween() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedMapping", conninfo, insert: Self.rows)
            let before = try ExactState.read(schema, version: try Self.version("v1"), on: connection)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try connection.rows("SELECT id::text, plan FROM \(schema).account ORDER BY id") == [
                [Self.a1, "gold"], [Self.a2, "gold"], [Self.a3, "silver"],
            ])
            #expect(try connection.rows("SELECT id::text, account_id::text, bio FROM \(schema).profile ORDER BY id") == [
                [Self.a1, Self.a1, "back\\slash\nline"], [Self.a3, Self.a3, ""],
            ])
            #expect(try connection.column("SELECT name FROM \(schema).country ORDER BY code COLLATE \"C\"", as: String.self)
                == ["GERMANY", "Nowhere", "QUOTES", "BRACES"])
            #expect(try connection.column("SELECT label FROM \(schema).membership ORDER BY account_id, \"group\" COLLATE \"C\"", as: String.self) == [
                "O'Brien \"ci\" @ Braces / a\"b\\c", "O'Brien \"ci\" @ Germany / admins",
                "Ünïcødé ✓ @ - / admins", "plain @ Nowhere / users",
            ])
            #expect(try await verifyClean(migrator, "acme"))
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try ExactState.read(schema, version: try Self.version("v1"), on: connection).differences(from: before) == [])
            #expect(try await verifyClean(migrator, "acme"))

            // The app at v1: a new account with a bio and a membership, a bio set, a plan and a country changed.
            try connection.fixtureScript("""
                INSERT INTO \(schema).account (id, name, plan, bio) VALUES ('12345678-0000-4000-8000-000000000000', 'new', 'Bronze', 'fresh');
                INSERT INTO \(schema).membership (account_id, "group", country_id) VALUES ('12345678-0000-4000-8000-000000000000', 'users', 'DE');
                UPDATE \(schema).account SET bio = 'now set', plan = 'PLATINUM ' WHERE id = '\(Self.a2)';
                UPDATE \(schema).country SET name = 'Deutschland' WHERE code = 'DE'
                """)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try connection.rows("SELECT id::text, plan FROM \(schema).account ORDER BY id") == [
                [Self.a1, "gold"], ["12345678-0000-4000-8000-000000000000", "bronze"], [Self.a2, "platinum"], [Self.a3, "silver"],
            ])
            #expect(try connection.rows("SELECT id::text, bio FROM \(schema).profile ORDER BY id") == [
                [Self.a1, "back\\slash\nline"], ["12345678-0000-4000-8000-000000000000", "fresh"], [Self.a2, "now set"], [Self.a3, ""],
            ])
            #expect(try connection.scalar("SELECT label FROM \(schema).membership WHERE account_id = '12345678-0000-4000-8000-000000000000'", as: String.self)
                == "new @ Deutschland / users")
            #expect(try await verifyClean(migrator, "acme"))

            // The app at v2: a Profile's bio changed, an account's plan set; down: the app's values win.
            try connection.fixtureScript("""
                UPDATE \(schema).profile SET bio = 'edited at v2' WHERE id = '\(Self.a3)';
                UPDATE \(schema).account SET plan = 'trial' WHERE id = '\(Self.a1)'
                """)
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            let accounts = try connection.rows("SELECT id::text, plan, bio FROM \(schema).account ORDER BY id")
            #expect(accounts == [
                [Self.a1, "trial", "back\\slash\nline"], ["12345678-0000-4000-8000-000000000000", "Bronze", "fresh"],
                [Self.a2, "PLATINUM ", "now set"], [Self.a3, "silver", "edited at v2"],
            ], "\(accounts)")
            #expect(try connection.column("SELECT name FROM \(schema).country ORDER BY code COLLATE \"C\"", as: String.self)
                == ["Deutschland", "Nowhere", "Quotes", "Braces"])
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// v3 (Membership.role dropped) down to v1 in one call (fused) and step by step: exactly v1.
    @Test(arguments: [["v1"], ["v2", "v1"]])
    func theWayDownFromV3GivesBackEveryValue(_ stops: [String]) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedMapping", conninfo, insert: Self.rows)
            let before = try ExactState.read(schema, version: try Self.version("v1"), on: connection)
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).profile", as: Int.self) == 2)
            for stop in stops { _ = try await migrator.rollback(tenant: "acme", to: stop) }
            #expect(try ExactState.read(schema, version: try Self.version("v1"), on: connection).differences(from: before) == [], "\(stops)")
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// `migrate --rehearse` to v3 and back over the mapped keyed entities: it passes and writes nothing.
    @Test func aRehearsalThereAndBackPassesAndWritesNothing() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedMapping", conninfo, insert: Self.rows)
            let before = try ExactState.read(schema, version: try Self.version("v1"), on: connection)
            let rehearsed = try await migrator.migrate(tenant: "acme", MigrationRequest(.move, to: "v3", allowDestructive: true, mode: .rehearse))
            #expect(rehearsed.outcome == .migrated)
            #expect(try ExactState.read(schema, version: try Self.version("v1"), on: connection).differences(from: before) == [])
            #expect(try connection.scalar("SELECT to_regclass($1) IS NULL", [schema + "._tm_archive"], as: Bool.self))
        }
    }

    /// `check --round-trip` over the family: synthetic rows for the uuid, text and composite keys,
    /// every pair there and back (the mapped ones too) and first → last → first, every value back.
    @Test func checkRoundTripPassesOverTheMappedKeyedFamily() async throws {
        try await expectRoundTripsPass(overFixture: "KeyedMapping")
    }

    /// Online, such a tenant migrates as offline (the change capture logs each key's text, the
    /// mapped steps' catch-up finds rows again by it, links into the uuid- and text-keyed tables
    /// included): with the app's writes once the shadow is built (a name the membership's label
    /// reads through its links, a membership added and one removed, a country and an account
    /// changed), the online tenant ends with the rows of a twin given the same writes and migrated
    /// offline, there and back, and both verify clean.
    @Test func onlineItMigratesAsOffline() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedMapping", conninfo, insert: Self.rows)
            let twin = try await migrator.createTenant("twin", version: "v1").schema
            try connection.execute(unsafeSQL: Self.rows.replacingOccurrences(of: "{schema}", with: twin))
            let writes = [
                "UPDATE S.account SET name = 'Renamed, {x}' WHERE id = '\(Self.a1)'",
                "UPDATE S.country SET name = 'Braces \"2\"' WHERE code = 'x,y{z}'",
                "INSERT INTO S.membership (account_id, \"group\", role, country_id) VALUES ('\(Self.a3)', 'x,y', 'new', 'a''b \"c\"')",
                "DELETE FROM S.membership WHERE account_id = '\(Self.a2)'",
                "UPDATE S.account SET plan = ' silver ' WHERE id = '\(Self.a3.uppercased())'",
            ]
            var online = migrator
            online.settings.online.batchRows = 1
            online.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == .built else { return }
                let app = try Connection(conninfo)
                for write in writes { _ = try app.execute(unsafeSQL: write.replacingOccurrences(of: "S.", with: "\(schema).")) }
            }
            let result = try await online.migrate(tenant: "acme", MigrationRequest(.move, to: "v2", online: .on))
            #expect(result.outcome == .migrated && result.online?.mode == "shadow", "\(String(describing: result.online))")
            for write in writes { _ = try connection.execute(unsafeSQL: write.replacingOccurrences(of: "S.", with: "\(twin).")) }
            _ = try await migrator.migrate(tenant: "twin", to: "v2")
            // (The archives differ by design: online, a proof that reads other rows, the Profile's bio
            // the way back copies into the account, is dropped and the column archived in every
            // row, docs/Archive.md; what comes back is the same, below.)
            func rows(_ schema: String) throws -> [String: String] {
                var rows: [String: String] = [:]
                for table in try connection.column("SELECT tablename::text FROM pg_tables WHERE schemaname = $1 AND tablename NOT LIKE '\\_tm\\_%'",
                                                   [schema], as: String.self) {
                    rows[table] = try connection.scalar("SELECT coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '') FROM \(schema).\(table) AS t", as: String.self)
                }
                return rows
            }
            #expect(try rows(schema) == rows(twin))
            let back = try await migrator.migrate(tenant: "acme", MigrationRequest(.move, to: "v1", allowDestructive: true, online: .on))
            // (The way back's mapping reads the Profile's bio for the account: it runs while writes wait.)
            #expect(back.outcome == .migrated && back.online != nil, "\(String(describing: back.online))")
            _ = try await migrator.migrate(tenant: "twin", MigrationRequest(.move, to: "v1", allowDestructive: true))
            #expect(try rows(schema) == rows(twin))
            #expect(try connection.scalar("SELECT bio FROM \(schema).account WHERE id = '\(Self.a1)'", as: String?.self) == "back\\slash\nline")
            #expect(try await verifyClean(migrator, "acme"))
            #expect(try await verifyClean(migrator, "twin"))
        }
    }

    /// What mappings over keyed entities cannot do is refused when the step is planned, naming the
    /// mapping and why: a `distinct:` mapping into the uuid-keyed Profile (its rows would take ranks
    /// as ids), and a copy from the text-keyed Country into the uuid-keyed Profile (keyed differently).
    @Test(arguments: [
        ("""
          - name: AccountToProfile
            source: Account
            destination: Profile
            distinct: "lower(source.name)"
            attributes: { bio: source.name }
        """, "mapping AccountToProfile is distinct:, and a distinct mapping's rows take their keys' ranks as integer ids"),
        ("""
          - name: CountryToProfile
            source: Country
            destination: Profile
            attributes: { bio: source.name }
        """, "mapping CountryToProfile makes rows of Profile from rows of Country, and each keeps its source row's key, so both must be keyed alike: "
            + "(code text) and (id uuid)"),
    ])
    func whatItCannotMapIsRefusedWhenPlanned(_ mapping: String, _ reason: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyedmapping-\(UUID().uuidString)/KeyedMapping")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixture("KeyedMapping"), to: directory)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("Mappings/v2-to-v1.yaml"))
        try ("source: v1\ndestination: v2\nentityMappings:\n" + mapping + "\n")
            .write(to: directory.appendingPathComponent("Mappings/v1-to-v2.yaml"), atomically: true, encoding: .utf8)
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: directory)
            #expect {
                _ = try migrator.plan(from: "v1", to: "v2")
            } throws: { error in
                "\(error)".contains("the mapping model KeyedMapping/Mappings/v1-to-v2.yaml cannot be compiled: ") && "\(error)".contains(reason)
            }
        }
    }

    /// Data that breaks the destination model fails validation naming the row by its key: every
    /// account copied into a Profile, whose bio is required, and a2 has none. The tenant stays at v1.
    @Test func aValidationFailureNamesTheRowByItsKey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyedmapping-\(UUID().uuidString)/KeyedMapping")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixture("KeyedMapping"), to: directory)
        let file = directory.appendingPathComponent("Mappings/v1-to-v2.yaml")
        try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "    filter: \"source.bio IS NOT NULL\"\n", with: "")
            .write(to: file, atomically: true, encoding: .utf8)
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: directory)
            let schema = try await migrator.createTenant("acme", version: "v1").schema
            let connection = try Connection(conninfo)
            try connection.fixtureScript(Self.rows.replacingOccurrences(of: "{schema}", with: schema))
            await #expect {
                _ = try await migrator.migrate(tenant: "acme", to: "v2")
            } throws: { error in
                "\(error)".contains("validation failed: Profile row key \(Self.a2) violates NOT NULL on bio (table profile)")
            }
            #expect(try connection.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 'acme'", as: String.self) == "v1")
        }
    }
}
