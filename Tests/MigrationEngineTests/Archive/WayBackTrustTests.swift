import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30, item 2: a proof by the way back trusts the reverse expression to give at the way down
/// what it gave at the way up. It is made only where PostgreSQL says every function, operator and
/// cast the expression uses is IMMUTABLE and that it reads only the tenant's own tables; otherwise
/// the column is archived in every row, as before. Either way the round trip is exact, compared
/// per column as text.
///
/// The family (`Fixtures/WayBackTrust`): v1 `Item{name, d, at}`, v2 `Item{name, local}`, the way
/// up writing `local` as `to_char(at, …)`; each test writes its own way back v2 → v1.
@Suite("Archive: a proof by the way back trusts only what cannot change")
struct WayBackTrustTests {
    static let schema = "trusted"

    /// A copy of the family whose way back writes `attributes` (`d: source.name`) in place.
    func family(wayBack attributes: [(String, String)]) throws -> URL {
        try familyCopy(of: "WayBackTrust", wayBack: itemToItemMapping(from: "v2", to: "v1", attributes: attributes))
    }

    /// Runs `body` on a new database with a copy of the family whose way back writes `attributes`
    /// (``family(wayBack:)``), its directory and its plans up and down; removes the copy after.
    func withWayBack(
        _ attributes: [(String, String)], _ body: (Connection, URL, (up: MigrationPlan, down: MigrationPlan)) throws -> Void
    ) async throws {
        let directory = try family(wayBack: attributes)
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let plans = try plans(directory)
        try await TestPostgres.withDatabase { connection in try body(connection, directory, plans) }
    }

    func plans(_ directory: URL) throws -> (up: MigrationPlan, down: MigrationPlan) {
        let migrator = try TenantMigrator(connectionString: "", familyDirectory: directory, policies: PolicyRegistry())
        return (try migrator.plan(from: "v1", to: "v2"), try migrator.plan(from: "v2", to: "v1"))
    }

    /// A tenant at v1: `d` equal to `name` in some rows, other text, NULL; `at` at 10:00 UTC or NULL.
    func tenantAtV1(_ connection: Connection, directory: URL, d: [String?]) throws {
        let family = try ModelFamily.load(from: directory)
        try connection.fixtureScript("CREATE SCHEMA \(Self.schema)")
        try connection.fixtureScript(family.version(named: "v1")!.relationalSchema().createStatements(inSchema: Self.schema, quoting: connection).joined(separator: ";\n"))
        for (index, value) in d.enumerated() {
            try connection.execute("INSERT INTO trusted.item (id, name, d, at) VALUES ($1, $2, $3, $4::timestamptz)",
                                   [Int64(index + 1), "n\(index + 1)", value, index % 3 == 2 ? nil : "2024-01-0\(index % 9 + 1) 10:00:00+00"])
        }
    }

    /// Every column of every item as text, read in UTC.
    func items(_ connection: Connection) throws -> [[String?]] {
        try connection.rows("SELECT id::text, name, d, pg_catalog.timezone('UTC', at)::text FROM trusted.item ORDER BY id")
    }

    /// The archive entries of `item.column` the way up made (the marker's under `#way back`).
    func entries(_ connection: Connection, _ column: String) throws -> [[String?]] {
        try connection.rows("SELECT row_id::text, value FROM trusted._tm_archive WHERE step_from = 'v1' AND table_name = 'item' AND column_name = $1 ORDER BY row_id", [column])
    }

    func markers(_ connection: Connection) throws -> [String] {
        try connection.column("SELECT value FROM trusted._tm_archive WHERE step_from = 'v1' AND column_name = '#way back'", as: String.self)
    }

    /// Up, then `between` (the app, or the session), then down: the tenant is as it was.
    func roundTrip(_ connection: Connection, _ plans: (up: MigrationPlan, down: MigrationPlan), between: () throws -> Void = {},
                   sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let before = try items(connection)
        _ = try connection.transaction { try plans.up.run(inSchema: Self.schema, on: $0) }
        try between()
        _ = try connection.transaction { try plans.down.run(inSchema: Self.schema, on: $0) }
        #expect(try items(connection) == before, sourceLocation: sourceLocation)
    }

    /// A way back that is not proved: the way up leaves no marker and archives `column` of every
    /// one of the tenant's `rows` rows, so the way down gives each value back, `between` (run
    /// between up and down, after these checks) notwithstanding.
    func expectNotProved(_ connection: Connection, _ plans: (up: MigrationPlan, down: MigrationPlan), archiving column: String, rows: Int,
                         between: () throws -> Void, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        try roundTrip(connection, plans, between: { () throws in
            #expect(try markers(connection).isEmpty, sourceLocation: sourceLocation)
            #expect(try entries(connection, column).count == rows, sourceLocation: sourceLocation)
            try between()
        }, sourceLocation: sourceLocation)
    }

    /// An immutable expression over the row's own columns is proved: only the rows where it
    /// would not give `d` back are archived, and the marker records it.
    @Test func anImmutableExpressionIsProved() async throws {
        try await withWayBack([("d", "lower(source.name)")]) { connection, directory, plans in
            try tenantAtV1(connection, directory: directory, d: ["n1", "other", nil, "N4"])
            try roundTrip(connection, plans) { () throws in
                #expect(try entries(connection, "d") == [["2", "other"], ["3", nil], ["4", "N4"]])
                #expect(try markers(connection).count == 1)
            }
        }
    }

    /// `now()` gives the way down another value: not proved, every `d` archived, and every `d`
    /// comes back (a proof would have lost them all to the rollback's time).
    @Test func aVolatileFunctionIsNotProved() async throws {
        try await withWayBack([("d", "pg_catalog.now()::text")]) { connection, directory, plans in
            try tenantAtV1(connection, directory: directory, d: ["n1", "other", nil])
            try expectNotProved(connection, plans, archiving: "d", rows: 3) { () throws in
                #expect(try entries(connection, "d") == [["1", "n1"], ["2", "other"], ["3", nil]])
            }
        }
    }

    /// `current_user` depends on who rolls back: not proved, and the row whose `d` was the way
    /// up's role comes back as it was when another role rolls back.
    @Test func currentUserIsNotProved() async throws {
        try await withWayBack([("d", "current_user")]) { connection, directory, plans in
            let me = try connection.scalar("SELECT current_user::text", as: String.self)
            let other = "tm_other_\(UUID().uuidString.prefix(8).lowercased())"
            try connection.execute(unsafeSQL: "CREATE ROLE \(other) SUPERUSER")
            defer { _ = try? connection.script(unsafeSQL: "RESET ROLE; DROP OWNED BY \(other); DROP ROLE \(other)") }
            try tenantAtV1(connection, directory: directory, d: [me, "other"])
            try expectNotProved(connection, plans, archiving: "d", rows: 2) { () throws in
                #expect(try entries(connection, "d") == [["1", me], ["2", "other"]])
                // The migrator's role changes: the archive is handed to it (the migrator uses
                // only an archive it owns, docs/Security.md).
                try connection.execute(unsafeSQL: "ALTER TABLE trusted._tm_archive OWNER TO \(other)")
                try connection.execute(unsafeSQL: "SET ROLE \(other)")
            }
        }
    }

    /// A reverse expression through the session's TimeZone (`local::timestamp::timestamptz`,
    /// STABLE casts) is not proved: rolled back under another TimeZone, every `at` comes back.
    @Test func aSettingDependentExpressionIsNotProved() async throws {
        try await withWayBack([("at", "source.local::timestamp::timestamptz")]) { connection, directory, plans in
            try connection.execute("SET TimeZone = 'UTC'")
            try tenantAtV1(connection, directory: directory, d: ["a", "b", "c", "d"])
            try expectNotProved(connection, plans, archiving: "at", rows: 4) { () throws in
                try connection.execute("SET TimeZone = 'Asia/Tokyo'")
            }
        }
    }

    /// A subquery on a table outside the tenant's schema reads rows the app (or another tenant)
    /// can change between up and down: not proved, and every `d` comes back after a rename there.
    @Test func aReadOutsideTheTenantIsNotProved() async throws {
        try await withWayBack([("d", "(SELECT c.name FROM public.country AS c WHERE c.code = source.name)")]) { connection, directory, plans in
            try connection.fixtureScript("CREATE TABLE public.country (code text PRIMARY KEY, name text); INSERT INTO public.country VALUES ('n1', 'Austria'), ('n2', 'Chile')")
            try tenantAtV1(connection, directory: directory, d: ["Austria", "Chile", "other"])
            try expectNotProved(connection, plans, archiving: "d", rows: 3) { () throws in
                try connection.execute("UPDATE public.country SET name = 'Österreich' WHERE code = 'n1'")
            }
        }
    }

    /// An immutable operator over the row's own column and a constant is proved.
    @Test func anImmutableOperatorIsProved() async throws {
        try await withWayBack([("d", "source.name || '!'")]) { connection, directory, plans in
            try tenantAtV1(connection, directory: directory, d: ["n1!", "x"])
            try roundTrip(connection, plans) { () throws in
                #expect(try entries(connection, "d") == [["2", "x"]])
                #expect(try markers(connection).count == 1)
            }
        }
    }
}
