import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30, class 4: when the app's change wins over an archived value, the value stays in the
/// archive, marked superseded: listed, counted in the run's report, restorable on request, and
/// deleted only by `archive prune` (also when a way up crosses its pair again).
@Suite("Archive: values the app's changes superseded")
struct SupersededEntryTests {
    static let rows = "INSERT INTO {schema}.item (id, name, d) VALUES (1, 'q', 'other'), (2, 'r', 'r'), (3, 's', NULL)"
    static let archived = "SELECT row_id::text, value, superseded::text FROM {schema}._tm_archive WHERE column_name = 'd' ORDER BY archived_at, row_id"

    @Test func theAppsChangeWinsAndTheArchivedValueIsKept() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("Superseded", conninfo, insert: Self.rows)
            let archived = Self.archived.replacingOccurrences(of: "{schema}", with: schema)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            try connection.execute(unsafeSQL: "UPDATE \(schema).item SET name = 'q2' WHERE id = 1")
            let down = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows("SELECT id::text, name, d FROM \(schema).item ORDER BY id") == [["1", "q2", "q2"], ["2", "r", "r"], ["3", "s", nil]])
            #expect(down.statistics.supersededEntries == 1)
            #expect(try connection.rows(archived) == [["1", "other", "true"]])
            let usage = try await migrator.archiveUsage(tenant: "acme").map(\.usage).filter { $0.stepFrom == "v1" }
            #expect(usage.map { "\($0.stepFrom) → \($0.stepTo): \($0.superseded) of \($0.entries)" } == ["v1 → v2: 1 of 1"])

            // Up again: the pair's new entries replace its earlier ones, but not a superseded one.
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try connection.rows(archived) == [["1", "other", "true"], ["3", nil, "false"]])
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows("SELECT id::text, d FROM \(schema).item ORDER BY id") == [["1", "q2"], ["2", "r"], ["3", nil]])
            #expect(try connection.rows(archived) == [["1", "other", "true"]])

            // On request, it comes back (at the version whose column it is), and leaves the archive.
            #expect(try await migrator.restoreSuperseded(tenant: "acme") == 1)
            #expect(try connection.rows("SELECT id::text, d FROM \(schema).item ORDER BY id") == [["1", "other"], ["2", "r"], ["3", nil]])
            #expect(try connection.rows(archived) == [])
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    /// At a version without the value's column, nothing is restored and the entry stays.
    @Test func aSupersededValueWaitsForItsVersion() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenantMigratedToV2("Superseded", conninfo, insert: Self.rows)
            try connection.execute(unsafeSQL: "UPDATE \(schema).item SET name = 'q2' WHERE id = 1")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try await migrator.restoreSuperseded(tenant: "acme") == 0)
            #expect(try connection.rows(Self.archived.replacingOccurrences(of: "{schema}", with: schema)) == [["1", "other", "true"], ["3", nil, "false"]])
        }
    }

    /// `tenant-migrate`: the rollback's report counts it, `archive list` shows it, `archive
    /// restore --superseded` puts it back (and refuses without `--superseded`).
    @Test func theCommandLineCountsListsAndRestoresThem() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (_, connection, schema) = try await fixtureTenantMigratedToV2("Superseded", conninfo, insert: Self.rows)
            try connection.execute(unsafeSQL: "UPDATE \(schema).item SET name = 'q2' WHERE id = 1")
            func run(_ arguments: [String]) async throws -> TenantMigrateExecutable.Output {
                try await TenantMigrateExecutable.run(arguments, database: conninfo, migrations: fixture("Superseded"))
            }
            let down = try await run(["rollback", "--tenant", "acme", "--to", "v1", "--json"])
            #expect(down.status == 0 && down.stdout.contains("supersededEntries"), "\(down.stdout)\n\(down.stderr)")
            let list = try await run(["archive", "list", "--tenant", "acme"])
            #expect(list.status == 0 && list.stdout.contains("SUPERSEDED") && list.stdout.contains("v1 → v2"), "\(list.stdout)")
            #expect(try await run(["archive", "restore", "--tenant", "acme"]).status != 0)
            #expect(try connection.rows("SELECT d FROM \(schema).item WHERE id = 1") == [["q2"]])
            let restore = try await run(["archive", "restore", "--tenant", "acme", "--superseded"])
            #expect(restore.status == 0 && restore.stdout.contains("acme: 1 superseded value restored"), "\(restore.stdout)\n\(restore.stderr)")
            #expect(try connection.rows("SELECT d FROM \(schema).item WHERE id = 1") == [["other"]])
        }
    }

    /// An archive an earlier release made (no `target`, no `superseded`, no `row_key`) is listed as it is, and
    /// brought to this release's shape by the first migration that uses it; its entries come back.
    @Test func anEarlierReleasesArchiveIsUpgradedAndItsEntriesComeBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenantMigratedToV2("Superseded", conninfo, insert: Self.rows)
            try connection.execute(unsafeSQL: "ALTER TABLE \(schema)._tm_archive DROP COLUMN target, DROP COLUMN superseded, DROP COLUMN row_key")
            #expect(try await migrator.archiveUsage(tenant: "acme").map(\.usage.entries) == [2])
            try connection.execute(unsafeSQL: "UPDATE \(schema).item SET name = 'q2' WHERE id = 1")
            let down = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(down.statistics.supersededEntries == 1)
            #expect(try connection.rows("SELECT id::text, d FROM \(schema).item ORDER BY id") == [["1", "q2"], ["2", "r"], ["3", nil]])
            #expect(try connection.rows(Self.archived.replacingOccurrences(of: "{schema}", with: schema)) == [["1", "other", "true"]])
        }
    }
}
