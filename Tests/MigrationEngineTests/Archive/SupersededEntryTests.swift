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
    static let archived = "SELECT row_id::text, value, coalesce(to_jsonb(a) ->> 'superseded', 'absent') FROM {schema}._tm_archive AS a WHERE column_name = 'd' ORDER BY archived_at, row_id"

    @Test func theAppsChangeWinsAndTheArchivedValueIsKept() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("Superseded", conninfo, insert: Self.rows)
            let archived = Self.archived.replacingOccurrences(of: "{schema}", with: schema)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            try connection.execute("UPDATE \(schema).item SET name = 'q2' WHERE id = 1")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows("SELECT id::text, name, d FROM \(schema).item ORDER BY id") == [["1", "q2", "q2"], ["2", "r", "r"], ["3", "s", nil]])
            #expect(try connection.rows(archived) == [["1", "other", "true"]])

            // Up again: the pair's new entries replace its earlier ones, but not a superseded one.
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try connection.rows(archived) == [["1", "other", "true"], ["3", nil, "false"]])
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows("SELECT id::text, d FROM \(schema).item ORDER BY id") == [["1", "q2"], ["2", "r"], ["3", nil]])
            #expect(try connection.rows(archived) == [["1", "other", "true"]])

            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
