import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// Issue 35: `plan --tenant` says what the tenant's archive will give back on the way it plans.
@Suite("plan --tenant: what the archive gives back")
struct PlanCommandArchiveTests {
    @Test func aPlanListsTheArchivedEntriesItGivesBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            #expect(try await bugTracker(["tenant", "create", "acme", "--version", "v1"], on: conninfo).status == 0)
            try BugTrackerIssues(count: 40, seed: 35, nullPriorities: true).insert(into: "tenant_acme", version: "v1", on: try Connection(conninfo))
            // Nothing archived yet: the plan says nothing of the archive.
            let first = try await bugTracker(["plan", "--tenant", "acme"], on: conninfo)
            #expect(first.status == 0 && !first.stdout.contains("GIVEN BACK"), "\(first.stdout)")
            #expect(try await bugTracker(["migrate", "--tenant", "acme"], on: conninfo).status == 0)
            #expect(try await bugTracker(["rollback", "--tenant", "acme", "--to", "v1"], on: conninfo).status == 0)

            // What the way down archived, per step, as `archive list` counts it.
            let list = try await bugTracker(["archive", "list", "--tenant", "acme", "--json"], on: conninfo)
            let usage = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]], "\(list.stdout)")
            let down = usage.compactMap { $0["usage"] as? [String: Any] }
                .filter { ($0["stepFrom"] as? String ?? "") > ($0["stepTo"] as? String ?? "") && ($0["entries"] as? Int ?? 0) > 0 }
            try #require(!down.isEmpty, "the way down archived something: \(list.stdout)")

            let plan = try await bugTracker(["plan", "--tenant", "acme"], on: conninfo)
            #expect(plan.status == 0 && plan.stdout.contains("GIVEN BACK"), "\(plan.stdout)")
            for step in down {
                let line = "  - \(step["stepFrom"]!) → \(step["stepTo"]!): \(step["entries"]!) entr"
                #expect(plan.stdout.contains(line), "\(line) in \(plan.stdout)")
            }
        }
    }
}
