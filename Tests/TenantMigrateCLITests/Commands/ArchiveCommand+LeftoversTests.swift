import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// Issue 35: after up, down and up, `archive list` shows no entries that nothing will use any more
/// (the way down's entries are consumed by the way up), while superseded entries, kept on purpose,
/// stay until `archive prune` or `archive restore --superseded`.
@Suite("archive list: no leftovers after up, down and up")
struct ArchiveCommandLeftoversTests {
    /// `archive list --tenant acme --json`, as (pair, entries, superseded).
    func listed(_ conninfo: String) async throws -> [(pair: String, entries: Int, superseded: Int)] {
        let list = try await bugTracker(["archive", "list", "--tenant", "acme", "--json"], on: conninfo)
        let usage = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]], "\(list.stdout)\n\(list.stderr)")
        return usage.compactMap { $0["usage"] as? [String: Any] }.map {
            ("\($0["stepFrom"]!) → \($0["stepTo"]!)", $0["entries"] as? Int ?? -1, $0["superseded"] as? Int ?? -1)
        }
    }

    @Test func theWayUpConsumesTheWayDownsEntries() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try await acmeAtV1(bugTracker, on: conninfo)
            let issues = BugTrackerIssues(count: 60, seed: 7, nullPriorities: true)
            try issues.insert(into: "tenant_acme", version: "v1", on: connection)
            let before = try BugTrackerIssues.issues(in: "tenant_acme", version: "v1", on: connection)
            #expect(try await bugTracker(["migrate", "--tenant", "acme"], on: conninfo).status == 0)
            #expect(try await bugTracker(["rollback", "--tenant", "acme", "--to", "v1"], on: conninfo).status == 0)
            #expect(try await listed(conninfo).contains { $0.pair == "v3 → v2" && $0.entries > 0 }, "the way down archived")
            #expect(try await bugTracker(["migrate", "--tenant", "acme"], on: conninfo).status == 0)

            // Only the last way up's entries are left: the way down's were given back or are of no use.
            let after = try await listed(conninfo)
            #expect(after.allSatisfy { $0.pair == "v1 → v2" || $0.pair == "v2 → v3" }, "\(after)")
            #expect(after.allSatisfy { $0.superseded == 0 }, "nothing the app changed: \(after)")
            // And the way down still gives every value back.
            #expect(try await bugTracker(["rollback", "--tenant", "acme", "--to", "v1"], on: conninfo).status == 0)
            #expect(try BugTrackerIssues.issues(in: "tenant_acme", version: "v1", on: connection) == before)
        }
    }

    @Test func supersededEntriesStayUntilPruned() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            #expect(try await bugTracker(["tenant", "create", "acme", "--version", "v2"], on: conninfo).status == 0)
            let connection = try Connection(conninfo)
            try BugTrackerIssues(count: 60, seed: 8, nullPriorities: true).insert(into: "tenant_acme", version: "v2", on: connection)
            let nulls = try connection.rows("SELECT id::text FROM tenant_acme.issue WHERE priority IS NULL ORDER BY id")
            let changed = try #require(nulls.first?[0])
            #expect(try await bugTracker(["migrate", "--tenant", "acme"], on: conninfo).status == 0)
            // The app gives a priority to an issue whose NULL the way up archived: its change wins on the way down.
            try connection.execute(unsafeSQL: "UPDATE tenant_acme.issue SET priority = 7 WHERE id = \(changed)")
            #expect(try await bugTracker(["rollback", "--tenant", "acme", "--to", "v2"], on: conninfo).status == 0)
            #expect(try connection.rows("SELECT priority::text FROM tenant_acme.issue WHERE id = \(changed)") == [["7"]])
            #expect(try await listed(conninfo).first { $0.pair == "v2 → v3" }?.superseded == 1)

            // Up and down again: the superseded entry stays, whatever else the runs consume.
            #expect(try await bugTracker(["migrate", "--tenant", "acme"], on: conninfo).status == 0)
            #expect(try await bugTracker(["rollback", "--tenant", "acme", "--to", "v2"], on: conninfo).status == 0)
            #expect(try await bugTracker(["migrate", "--tenant", "acme"], on: conninfo).status == 0)
            let kept = try await listed(conninfo)
            #expect(kept.reduce(0) { $0 + $1.superseded } == 1, "\(kept)")
            #expect(kept.allSatisfy { $0.pair == "v2 → v3" }, "\(kept)")
        }
    }
}
