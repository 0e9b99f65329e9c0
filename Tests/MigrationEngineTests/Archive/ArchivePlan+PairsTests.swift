import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 22, cases 1–3: archive entries are keyed by the adjacent pair that destroyed the value,
/// so a way down gives them back whatever the shape of the way up and of the way down (one call or
/// one release at a time, fused or not), and `--no-archive` never skips a restore.
@Suite("Archive: entries keyed by adjacent pair")
struct ArchivePlanPairsTests {
    /// DropSteps: v2 drops Item.a, v3 drops Item.b (every step inferred).
    static let rows = "INSERT INTO {schema}.item (id, name, a, b) VALUES (1, 'one', 'alpha', 10), (2, 'two', NULL, 20), (3, 'three', 'gamma', NULL), (4, 'four', '', 0)"
    static let expected: [[String?]] = [["1", "one", "alpha", "10"], ["2", "two", nil, "20"], ["3", "three", "gamma", nil], ["4", "four", "", "0"]]

    static func items(_ connection: Connection, _ schema: String) throws -> [[String?]] {
        try connection.rows("SELECT id::text, name, a, b::text FROM \(schema).item ORDER BY id")
    }

    /// Runs `body` with tenant `acme` of DropSteps at v1, holding ``rows``, on a new database.
    static func withTenant(_ body: (TenantMigrator, Connection, String) async throws -> Void) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("DropSteps", conninfo, insert: rows)
            try await body(migrator, connection, schema)
        }
    }

    /// Expects every row of ``rows`` back as it was, the archive emptied by the restore, and tenant
    /// `acme`'s schema clean.
    static func expectEverythingBack(_ migrator: TenantMigrator, _ connection: Connection, _ schema: String,
                                     sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        #expect(try items(connection, schema) == expected, sourceLocation: sourceLocation)
        #expect(try connection.scalar("SELECT count(*)::int FROM \(schema)._tm_archive", as: Int.self) == 0, sourceLocation: sourceLocation)
        #expect(try await verifyClean(migrator, "acme", sourceLocation: sourceLocation))
    }

    /// Case 1: up in one call (one fused step v1 → v3), down one release at a time.
    @Test func upInOneCallDownOneReleaseAtATime() async throws {
        try await Self.withTenant { migrator, connection, schema in
            let up = try migrator.plan(from: "v1", to: "v3")
            #expect(up.steps.count == 1 && up.steps[0].isFused, "\(up.steps)")
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            #expect(try connection.rows("SELECT id::text, name, b::text FROM \(schema).item ORDER BY id") == Self.expected.map { [$0[0], $0[1], $0[3]] })
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            try await Self.expectEverythingBack(migrator, connection, schema)
        }
    }

    /// Case 2: up one release at a time, down in one call (one fused step v3 → v1).
    @Test func upOneReleaseAtATimeDownInOneCall() async throws {
        try await Self.withTenant { migrator, connection, schema in
            try await walk(migrator, from: "v1", ["v2", "v3"])
            let down = try migrator.plan(from: "v3", to: "v1")
            #expect(down.steps.count == 1 && down.steps[0].isFused, "\(down.steps)")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            try await Self.expectEverythingBack(migrator, connection, schema)
        }
    }

    /// The entries of a fused step name the pair that destroyed each value.
    @Test func aFusedStepKeysEachEntryByItsPair() async throws {
        try await Self.withTenant { migrator, connection, schema in
            _ = try await migrator.migrate(tenant: "acme", to: "v3")
            let keys = try connection.rows("SELECT step_from, step_to, column_name, count(*)::text FROM \(schema)._tm_archive GROUP BY 1, 2, 3 ORDER BY 1, 2, 3")
            // NULLs are archived too: the way down must be able to put NULL back.
            #expect(keys == [["v1", "v2", "a", "4"], ["v2", "v3", "b", "4"]])
        }
    }

    /// Case 3: `--no-archive` on the way down skips archiving what that run destroys, never the
    /// restore of what earlier runs kept.
    @Test func noArchiveOnTheWayDownStillRestores() async throws {
        try await Self.withTenant { upMigrator, connection, schema in
            var migrator = upMigrator
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            migrator.archives = false
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            try await Self.expectEverythingBack(migrator, connection, schema)
        }
    }

    /// Mixed shapes: up one release at a time, down v3 → v2 → v1 in two calls; and up in one
    /// call, down in one call.
    @Test func everyOtherShapeGivesEverythingBack() async throws {
        try await Self.withTenant { migrator, connection, schema in
            try await walk(migrator, from: "v1", ["v2", "v3", "v2", "v1"])
            #expect(try Self.items(connection, schema) == Self.expected)
            try await walk(migrator, from: "v1", ["v3", "v1"])
            try await Self.expectEverythingBack(migrator, connection, schema)
        }
    }
}

/// Archives written by earlier releases: a fused step's entries keyed by its ends (`v1 → v3`).
@Suite("Archive: entries of earlier releases")
struct ArchivePlanLegacyEntriesTests {
    /// A DropSteps tenant at v3 whose archive is as releases before pair keys wrote it: every
    /// entry of the fused v1 → v3 step under `v1 → v3`, NULLs not archived.
    static func legacyTenant(_ conninfo: String) async throws -> (TenantMigrator, Connection, String) {
        let (migrator, connection, schema) = try await fixtureTenant("DropSteps", conninfo, insert: ArchivePlanPairsTests.rows)
        _ = try await migrator.migrate(tenant: "acme", to: "v3")
        try connection.execute(unsafeSQL: "DELETE FROM \(schema)._tm_archive WHERE value IS NULL")
        try connection.execute(unsafeSQL: "UPDATE \(schema)._tm_archive SET step_from = 'v1', step_to = 'v3', left_value = NULL, compares = false")
        #expect(try connection.rows("SELECT DISTINCT step_from, step_to FROM \(schema)._tm_archive") == [["v1", "v3"]])
        return (migrator, connection, schema)
    }

    @Test func comeBackOneReleaseAtATime() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await Self.legacyTenant(conninfo)
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            // Rekeyed by pair: what v2 → v3 took came back, what v1 → v2 took waits for its pair.
            #expect(try connection.rows("SELECT DISTINCT step_from, step_to, column_name FROM \(schema)._tm_archive") == [["v1", "v2", "a"]])
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            try await ArchivePlanPairsTests.expectEverythingBack(migrator, connection, schema)
        }
    }

    @Test func comeBackInOneCall() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await Self.legacyTenant(conninfo)
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try ArchivePlanPairsTests.items(connection, schema) == ArchivePlanPairsTests.expected)
        }
    }
}
