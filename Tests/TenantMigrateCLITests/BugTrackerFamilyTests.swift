import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// Issue 20's first hour, as a test: a bug tracker modelled from the docs alone, written only in
/// YAML (`PackagePaths.bugTrackerFamily`), run by the stock `tenant-migrate` up and down. v2 → v3
/// turns the status text into a de-duplicated Status with a to-one from Issue, and NULL priorities
/// into 0; the way down gives every spelling and every NULL back from the archive.
@Suite("BugTracker: YAML only, through tenant-migrate")
struct BugTrackerFamilyTests {
    @Test func upAndDownWithNullsAndCaseVariants() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let tenants = ["acme": BugTrackerIssues(count: 240, seed: 20, nullPriorities: true),
                           "globex": BugTrackerIssues(count: 120, seed: 21, nullPriorities: true)]
            let created = try await bugTracker(["tenant", "create", "acme", "globex", "--version", "v1"], on: conninfo)
            #expect(created.status == 0, "\(created.stderr)")
            let connection = try Connection(conninfo)
            var before: [String: [[String?]]] = [:]
            for (tenant, issues) in tenants {
                try issues.insert(into: "tenant_" + tenant, version: "v1", on: connection)
                before[tenant] = try BugTrackerIssues.issues(in: "tenant_" + tenant, version: "v1", on: connection)
                #expect(issues.merged().count > 10 && issues.rows.contains { $0.status == nil } && issues.rows.contains { $0.priority == nil })
            }

            let up = try await bugTracker(["migrate", "--all"], on: conninfo)
            #expect(up.status == 0 && up.stdout.contains("2 migrated"), "\(up.stdout)\n\(up.stderr)")
            for (tenant, issues) in tenants {
                let schema = "tenant_" + tenant
                let expected = issues.expected()
                #expect(try connection.rows("SELECT id::text, name FROM \(schema).status ORDER BY id") == expected.statuses)
                for row in try connection.rows("SELECT id::text, status_id::text, priority::text FROM \(schema).issue") {
                    let id = Int64(row[0]!)!
                    #expect(row[1].flatMap { Int64($0) } == expected.links[id] ?? nil, "\(tenant) issue \(id)")
                    #expect(row[2] == String(issues.rows.first { $0.id == id }!.priority ?? 0), "\(tenant) issue \(id)")
                }
            }
            #expect(try connection.rows("SELECT name, version FROM tenant_migrator.tenants ORDER BY name") == [["acme", "v3"], ["globex", "v3"]])

            // Everything v3 merged or overwrote is in the archive: no consent needed on the way down.
            let down = try await bugTracker(["rollback", "--all", "--to", "v1"], on: conninfo)
            #expect(down.status == 0 && down.stdout.contains("2 rolled back"), "\(down.stdout)\n\(down.stderr)")
            for tenant in tenants.keys {
                #expect(try BugTrackerIssues.issues(in: "tenant_" + tenant, version: "v1", on: connection) == before[tenant],
                        "\(tenant): every spelling of every status, and every NULL priority, comes back")
            }
        }
    }

    /// `check --round-trip` (generated data, NULLs included): every trip gives every value back,
    /// nothing excused.
    @Test func theRoundTripCheckPasses() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let output = try await bugTracker(["check", "--round-trip", "--json"], on: conninfo)
            let report = try JSONDecoder().decode(RoundTripReport.self, from: Data(output.stdout.utf8))
            #expect(Set([["v1", "v2", "v1"], ["v2", "v3", "v2"], ["v1", "v3", "v1"]]).isSubset(of: Set(report.trips.map(\.path))), "\(report.trips.map(\.path))")
            #expect(report.trips.allSatisfy { $0.error == nil && $0.excused == 0 }, "\(report)")
            #expect(output.status == 0 && report.passed, "\(output.stdout)\n\(output.stderr)")
        }
    }

    /// Issue 35: the priority's account is one item (the mapping's `coalesce`, then the backfill of
    /// v3's default), said without SQL; the archive keeps only the values the step changed (the NULLs
    /// that became 0, which the way back cannot tell from a real 0), not the unchanged priorities;
    /// and the way down still gives every value back, every NULL included. With and without the
    /// default.
    @Test func thePriorityIsOneItemAndTheArchiveKeepsOnlyTheNullsItChanged() async throws {
        let withDefault = try BugTrackerMistake.priorityWithDefault()
        for family in [PackagePaths.bugTrackerFamily, withDefault.directory] {
            try await TestPostgres.withDatabaseURL { conninfo in
                let check = try await TenantMigrateExecutable.run(["check"], database: conninfo, migrations: family)
                #expect(check.status == 0, "\(check.stderr)")
                let upward = check.stdout.components(separatedBy: "v2 → v3: mapped").last?.components(separatedBy: "v3 → v2").first ?? ""
                let priority = upward.split(separator: "\n").filter { $0.contains("issue.priority") }
                #expect(priority.count == 1, "one item for the priority: \(upward)")
                #expect(!upward.contains("source.\"") && !upward.contains("{schema}"), "no SQL in the account: \(upward)")
                if family == withDefault.directory {
                    #expect(priority.first?.contains("coalesce(source.priority, 0), then the backfill") == true, "\(priority)")
                }

                let issues = BugTrackerIssues(count: 200, seed: 35, nullPriorities: true)
                #expect(try await TenantMigrateExecutable.run(["tenant", "create", "acme", "--version", "v2"], database: conninfo, migrations: family).status == 0)
                let connection = try Connection(conninfo)
                try issues.insert(into: "tenant_acme", version: "v2", on: connection)
                let before = try BugTrackerIssues.issues(in: "tenant_acme", version: "v2", on: connection)
                let up = try await TenantMigrateExecutable.run(["migrate", "--tenant", "acme"], database: conninfo, migrations: family)
                #expect(up.status == 0, "\(up.stdout)\n\(up.stderr)")
                let archived = try connection.rows("SELECT row_id::text, value FROM tenant_acme._tm_archive WHERE table_name = 'issue' AND column_name = 'priority' ORDER BY row_id::bigint")
                let nulls = issues.rows.filter { $0.priority == nil }.map { [String($0.id), nil] as [String?] }
                #expect(!nulls.isEmpty && archived == nulls, "only the NULLs that became 0: \(archived.prefix(4)) against \(nulls.prefix(4))")

                let down = try await TenantMigrateExecutable.run(["rollback", "--tenant", "acme", "--to", "v2"], database: conninfo, migrations: family)
                #expect(down.status == 0, "\(down.stdout)\n\(down.stderr)")
                #expect(try BugTrackerIssues.issues(in: "tenant_acme", version: "v2", on: connection) == before, "every value back, every NULL included")
            }
        }
    }
}
