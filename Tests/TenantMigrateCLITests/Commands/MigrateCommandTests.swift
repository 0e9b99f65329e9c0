import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// A narrowing that does not fit names its table, column, value and row, once; trials speak in
/// the conditional (issue 20).
@Suite("migrate")
struct MigrateCommandTests {
    @Test func aFailedNarrowingNamesTheColumnAndARowOnce() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try await acmeAtV1(tracker, on: conninfo)
            try connection.execute("INSERT INTO tenant_acme.issue (title, prio) VALUES ('a', 1), ('b', NULL), ('c', -40000), ('d', 50000)")
            let cause = "ERROR 22003: smallint out of range (table tenant_acme.issue, column priority)\nDETAIL: row id 3 holds \"-40000\", which does not fit smallint"

            let dryRun = try await tracker(["migrate", "--tenant", "acme", "--dry-run"], on: conninfo)
            #expect(dryRun.status == 1)
            #expect(dryRun.stderr.contains("tenant acme: dry run of v1 → v2 would fail in step v1 → v2: inferred; everything was rolled back, nothing was changed. Cause: " + cause),
                    "\(dryRun.stderr)")
            #expect(dryRun.stderr.components(separatedBy: "smallint out of range").count == 2, "the error is printed once: \(dryRun.stderr)")

            let rehearsal = try await tracker(["migrate", "--tenant", "acme", "--rehearse"], on: conninfo)
            #expect(rehearsal.stderr.contains("tenant acme: rehearsal of v1 → v2 failed in step"), "\(rehearsal.stderr)")

            let applied = try await tracker(["migrate", "--tenant", "acme"], on: conninfo)
            #expect(applied.status == 1 && applied.stderr.contains(cause), "\(applied.stderr)")
            #expect(applied.stderr.components(separatedBy: "smallint out of range").count == 2, "\(applied.stderr)")
            #expect(try connection.execute("SELECT version FROM tenant_migrator.tenants WHERE name = 'acme'").first?.decode(String.self, at: 0) == "v1")

            // A fleet's dry run says what would happen, in the conditional, and names the row too.
            let fleet = try await tracker(["migrate", "--all", "--dry-run"], on: conninfo)
            #expect(fleet.status == 1 && fleet.stdout.contains("1 would fail") && fleet.stdout.contains("row id 3 holds"), "\(fleet.stdout)")
            #expect(fleet.stderr.contains("dry run 1/1, 1 failed"), "the progress line off a terminal: \(fleet.stderr)")
            #expect(!fleet.stdout.contains("migrated"), "\(fleet.stdout)")
        }
    }
}
