import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 22, cases 4, 5 and 7: whatever the destination cannot give back is archived (NULL
/// originals, values a mapping read and then dropped), and compare-and-restore holds for every
/// archived value, dropped columns included.
@Suite("Archive: what the destination cannot give back")
struct StepArchiveRestoreTests {
    /// Migrates tenant `acme` to v2 and rolls it back to v1, expecting `up` to read `upRows` on v2,
    /// `down` to read `downRows` back on v1, and the tenant's schema to be clean.
    func expectUpAndBack(_ migrator: TenantMigrator, _ connection: Connection,
                         up: String, _ upRows: [[String?]], down: String, _ downRows: [[String?]],
                         sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        _ = try await migrator.migrate(tenant: "acme", to: "v2")
        #expect(try connection.rows(up) == upRows, sourceLocation: sourceLocation)
        _ = try await migrator.rollback(tenant: "acme", to: "v1")
        #expect(try connection.rows(down) == downRows, sourceLocation: sourceLocation)
        #expect(try await verifyClean(migrator, "acme", sourceLocation: sourceLocation))
    }

    /// Case 4: a mapped step with a mapped way down. The way down fills empty notes, but a note
    /// that was NULL before the way up comes back NULL, as every other note comes back as it was.
    @Test func aNullOriginalComesBackNull() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("NullOriginals", conninfo,
                insert: "INSERT INTO {schema}.item (id, name, note) VALUES (1, 'a', 'Hello'), (2, 'b', NULL), (3, 'c', '')")
            try await expectUpAndBack(migrator, connection,
                                      up: "SELECT note FROM \(schema).item ORDER BY id", [["HELLO"], [nil], [""]],
                                      down: "SELECT note FROM \(schema).item ORDER BY id", [["Hello"], [nil], [""]])
        }
    }

    /// Case 5: a column a mapping reads and then drops is archived; the inferred way down gives it back.
    @Test func aColumnAMappingReadsAndDropsComesBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("MappedDrop", conninfo,
                insert: "INSERT INTO {schema}.item (id, name, d) VALUES (1, 'a', 'four'), (2, 'b', NULL), (3, 'c', ' spaced ')")
            let plan = try migrator.plan(from: "v1", to: "v2")
            #expect(plan.archivedChanges.contains { $0.table == "item" && $0.column == "d" }, "\(plan.archivedChanges)")
            try await expectUpAndBack(migrator, connection,
                                      up: "SELECT n::text FROM \(schema).item ORDER BY id", [["4"], ["0"], ["8"]],
                                      down: "SELECT d FROM \(schema).item ORDER BY id", [["four"], [nil], [" spaced "]])
        }
    }

    /// Case 5 on a mapped way down that cannot rebuild the text exactly.
    @Test func textAMappedWayDownCannotRebuildComesBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenant("Durations", conninfo,
                insert: "INSERT INTO {schema}.track (id, title, length) VALUES (1, 'a', ' 3:07 '), (2, 'b', 'abc'), (3, 'c', '4:05'), (4, 'd', NULL)")
            try await expectUpAndBack(migrator, connection,
                                      up: "SELECT seconds::text FROM \(schema).track ORDER BY id", [["187"], [nil], ["245"], [nil]],
                                      down: "SELECT length FROM \(schema).track ORDER BY id", [[" 3:07 "], ["abc"], ["4:05"], [nil]])
        }
    }

    /// Case 5 (changed after the way up): a track whose seconds the app changed gets the way
    /// down's value, not the archived text.
    @Test func aDerivedValueTheAppChangedWins() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenantMigratedToV2("Durations", conninfo,
                insert: "INSERT INTO {schema}.track (id, title, length) VALUES (1, 'a', ' 3:07 '), (2, 'b', ' 1:00 ')")
            try connection.execute(unsafeSQL: "UPDATE \(schema).track SET seconds = 61 WHERE id = 2")
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.rows("SELECT length FROM \(schema).track ORDER BY id") == [[" 3:07 "], ["1:01"]])
            // The entry the app overrode stays until pruned.
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema)._tm_archive WHERE column_name = 'length'", as: Int.self) == 1)
        }
    }

    /// Case 7: the app moves an issue to a new status after the way up; the way down keeps the
    /// app's choice instead of the archived text. The other issues get their own spelling back.
    @Test func aLinkTheAppChangedWinsOverTheArchivedText() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection, schema) = try await fixtureTenantMigratedToV2("StatusLinks", conninfo,
                insert: "INSERT INTO {schema}.issue (id, title, status) VALUES (1, 'crash', 'Open '), (2, 'typo', 'Closed'), (3, 'idea', NULL), (4, 'slow', 'OPEN')")
            #expect(try connection.rows("SELECT i.id::text, s.name FROM \(schema).issue i LEFT JOIN \(schema).status s ON s.id = i.status_id ORDER BY i.id")
                == [["1", "open"], ["2", "closed"], ["3", nil], ["4", "open"]])
            // The app moves issue 1 to a new status.
            let triage = try connection.scalar("INSERT INTO \(schema).status (name) VALUES ('triage') RETURNING id", as: Int64.self)
            try connection.execute(unsafeSQL: "UPDATE \(schema).issue SET status_id = $1 WHERE id = 1", [triage])
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            let statuses = try connection.rows("SELECT status FROM \(schema).issue ORDER BY id")
            #expect(statuses == [["triage"], ["Closed"], [nil], ["OPEN"]])
            #expect(try await verifyClean(migrator, "acme"))
        }
    }
}
