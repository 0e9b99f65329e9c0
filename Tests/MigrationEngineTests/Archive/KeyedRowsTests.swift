import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: the archive keeps values and rows of entities keyed by anything — a uuid `id` (as
/// Rails makes it), a natural text key (as Django's tables have), composite keys (a uuid and a
/// text; a date and a numeric) — and every way down gives every value back exactly, stepwise or
/// fused (fixture family KeyedArchive). The keys' values are NULL-free but tricky: quotes,
/// backslashes, unicode, spaces, commas and braces (array syntax), and numerics and dates.
@Suite("Archive: rows keyed by a uuid, a natural or a composite key")
struct KeyedRowsTests {
    static let rows = #"""
        WITH tokens AS (INSERT INTO {schema}.token (id, label, note) VALUES
            ('00000000-0000-4000-8000-000000000001', 'O''Brien "ci"', 'back\slash' || chr(10) || 'line'),
            ('6f1c2a3e-9b7d-4c5e-8f00-aabbccddeeff', 'Ünïcødé ✓', NULL),
            ('ffffffff-ffff-4fff-bfff-ffffffffffff', 'plain', '')),
        countries AS (INSERT INTO {schema}.country (code, name, motto, rate) VALUES
            ('DE', 'Germany', NULL, 1.234), ('a''b "c"', 'Quotes', 'Einigkeit', 2.000), (' sp ', 'Spaces', NULL, -0.050),
            ('x,y{z}', 'Braces', 'NULL', 9999.999), ('ü ñ 日本', 'Unicode', 'ok', 0.000)),
        memberships AS (INSERT INTO {schema}.membership (token_id, "group", role) VALUES
            ('00000000-0000-4000-8000-000000000001', 'admins', 'owner'), ('00000000-0000-4000-8000-000000000001', 'a"b\c', NULL),
            ('6f1c2a3e-9b7d-4c5e-8f00-aabbccddeeff', 'admins', 'x,y{z}')),
        slots AS (INSERT INTO {schema}.slot (day, price, label) VALUES
            ('2024-02-29', 1.50, 'leap'), ('2024-02-29', 10.05, NULL), ('1999-12-31', -0.01, 'eve')),
        sessions AS (INSERT INTO {schema}.session (id, data, hits) VALUES
            ('k''q\' || chr(9) || 'ey "1"', '{"cart": [1, 2]}', 3), ('ключ-2', NULL, 0), ('0', '', 1))
        INSERT INTO {schema}.badge (title, token_id) VALUES
            ('gold', '00000000-0000-4000-8000-000000000001'), ('silver', NULL), ('bronze', 'ffffffff-ffff-4fff-bfff-ffffffffffff')
        """#

    static func v1() throws -> ModelVersion {
        try ModelFamily.load(from: fixture("KeyedArchive")).version(named: "v1")!
    }

    /// Down from v2 to v1: the dropped columns of the uuid-, natural- and composite-keyed entities,
    /// the link into the uuid-keyed Token, the NULLs made required and the narrowed numerics all
    /// come back, as text, with the schema.
    @Test func theWayDownFromV2GivesBackEveryValueOfEveryKey() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedArchive", conninfo, insert: Self.rows)
            let before = try ExactState.read(schema, version: try Self.v1(), on: connection)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try connection.column("SELECT motto FROM \(schema).country ORDER BY code COLLATE \"C\"", as: String.self) == ["none", "none", "Einigkeit", "NULL", "ok"])
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try ExactState.read(schema, version: try Self.v1(), on: connection).differences(from: before) == [])
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// Whole rows of every kind of key, removed by v3: back in one call (fused) and step by step.
    @Test(arguments: [["v1"], ["v2", "v1"]])
    func theWayDownFromV3GivesBackEveryRow(_ stops: [String]) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedArchive", conninfo, insert: Self.rows)
            let before = try ExactState.read(schema, version: try Self.v1(), on: connection)
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            for stop in stops { _ = try await migrator.rollback(tenant: "acme", to: stop) }
            #expect(try ExactState.read(schema, version: try Self.v1(), on: connection).differences(from: before) == [], "\(stops)")
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// `migrate --rehearse` to v3 and back over every kind of key: it passes and writes nothing.
    @Test func aRehearsalThereAndBackPassesAndWritesNothing() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("KeyedArchive", conninfo, insert: Self.rows)
            let before = try ExactState.read(schema, version: try Self.v1(), on: connection)
            let rehearsed = try await migrator.migrate(tenant: "acme", MigrationRequest(.move, to: "v3", allowDestructive: true, mode: .rehearse))
            #expect(rehearsed.outcome == .migrated)
            #expect(try ExactState.read(schema, version: try Self.v1(), on: connection).differences(from: before) == [])
            #expect(try connection.scalar("SELECT to_regclass($1) IS NULL", [schema + "._tm_archive"], as: Bool.self))
        }
    }

    /// The app's changes between up and down win by row key: a motto the app set, and a row whose
    /// natural key the app changed (its archived value is kept, superseded, not lost).
    @Test func theAppsChangesWinByKeyAndTheArchivedValueIsKept() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenantMigratedToV2("KeyedArchive", conninfo, insert: Self.rows)
            try connection.execute(unsafeSQL: "UPDATE \(schema).country SET motto = 'set by app' WHERE code = ' sp '")
            try connection.execute(unsafeSQL: "UPDATE \(schema).country SET code = 'D' || 'E2' WHERE code = 'DE'")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows("SELECT code, motto, rate::text FROM \(schema).country ORDER BY code COLLATE \"C\"") == [
                [" sp ", "set by app", "-0.050"], ["DE2", "none", "1.200"], ["a'b \"c\"", "Einigkeit", "2.000"],
                ["x,y{z}", "NULL", "9999.999"], ["ü ñ 日本", "ok", "0.000"],
            ])
            // DE's motto and rate were archived for a key no row has now, and " sp "'s motto lost to the app's: kept, superseded.
            #expect(try connection.scalar("SELECT count(*) FROM \(schema)._tm_archive WHERE superseded AND table_name = 'country'", as: Int64.self) == 3)
            #expect(try await verifyClean(migrator, "acme"))
            // On request, the superseded value whose row is there (by its key) comes back; DE's stay.
            #expect(try await migrator.restoreSuperseded(tenant: "acme") == 1)
            #expect(try connection.rows("SELECT code, motto FROM \(schema).country WHERE code IN (' sp ', 'DE2') ORDER BY code COLLATE \"C\"") == [
                [" sp ", nil], ["DE2", "none"],
            ])
            #expect(try connection.scalar("SELECT count(*) FROM \(schema)._tm_archive WHERE superseded AND table_name = 'country'", as: Int64.self) == 2)
        }
    }

    /// `check --round-trip` over the keyed family: synthetic rows for a uuid id, a natural text key
    /// and composite keys, every pair there and back and first → last → first, every value back.
    @Test func checkRoundTripPassesOverTheKeyedFamily() async throws {
        try await expectRoundTripsPass(overFixture: "KeyedArchive")
    }

    /// A row the app made at v2 has no archived value of Token's required label: the way down
    /// refuses, naming the row by its key (a uuid), and changes nothing.
    @Test func aRowMadeSinceIsNamedByItsKey() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenantMigratedToV2("KeyedArchive", conninfo, insert: Self.rows)
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).token (id) VALUES ('12345678-0000-4000-8000-000000000000')")
            await #expect {
                _ = try await migrator.rollback(tenant: "acme", to: "v1")
            } throws: { error in
                "\(error)".contains("holds no value for 1 row of token (keys 12345678-0000-4000-8000-000000000000)")
            }
            // Still at v2 (verified against it), the new row kept.
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).token", as: Int.self) == 4)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// A mapping from an entity keyed otherwise than by an integer id into a table keyed by an
    /// integer id is refused when the step is planned, with the reason (each row it makes keeps
    /// its source row's key); nothing changes. (Mappings that keep the key: KeyedMappingTests.)
    @Test func aMappingModelOverAKeyedEntityIsRefusedNamingIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyed-\(UUID().uuidString)/KeyedArchive")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixture("KeyedArchive"), to: directory)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Mappings"), withIntermediateDirectories: true)
        try """
            source: v1
            destination: v2
            entityMappings:
              - name: SessionToBadge
                source: Session
                destination: Badge
                attributes: { title: "coalesce(source.data, source.id)" }
            """.write(to: directory.appendingPathComponent("Mappings/v1-to-v2.yaml"), atomically: true, encoding: .utf8)
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: directory)
            let schema = try await migrator.createTenant("acme", version: "v1").schema
            let connection = try Connection(conninfo)
            try connection.execute(unsafeSQL: Self.rows.replacingOccurrences(of: "{schema}", with: schema))
            let before = try ExactState.read(schema, version: try Self.v1(), on: connection)
            await #expect {
                _ = try await migrator.migrate(tenant: "acme", to: "v2")
            } throws: { error in
                "\(error)".contains("the mapping model KeyedArchive/Mappings/v1-to-v2.yaml cannot be compiled: entity Session (table session) is keyed by "
                    + "(id character varying(40)): mapping SessionToBadge makes rows of Badge from rows of Session, and each keeps its source row's key, "
                    + "so both must be keyed alike: (id character varying(40)) and (id, an integer)")
            }
            #expect(try ExactState.read(schema, version: try Self.v1(), on: connection).differences(from: before) == [])
        }
    }
}

/// An archive an earlier release made has no `row_key`: the first migration that uses it adds the
/// column (in its transaction) and its entries, kept by `row_id`, come back as before.
@Suite("Archive: an earlier release's archive gains row_key")
struct ArchiveRowKeyUpgradeTests {
    @Test func anArchiveWithoutRowKeyIsUpgradedAndGivesBackItsEntries() async throws {
        try await ArchivePlanPairsTests.withTenant { migrator, connection, schema in
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            try connection.execute(unsafeSQL: "ALTER TABLE \(schema)._tm_archive DROP COLUMN row_key")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            try await ArchivePlanPairsTests.expectEverythingBack(migrator, connection, schema)
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_attribute WHERE attrelid = '\(schema)._tm_archive'::regclass AND attname = 'row_key'",
                                          as: Int.self) == 1)
        }
    }
}
