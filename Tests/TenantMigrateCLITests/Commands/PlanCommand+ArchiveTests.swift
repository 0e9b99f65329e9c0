import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// Issue 35: `plan --tenant` says what the tenant's archive will give back on the way it plans, in
/// every format, per entity and attribute; the run then counts what it gave back.
@Suite("plan --tenant: what the archive gives back")
struct PlanCommandArchiveTests {
    @Test func aPlanListsTheArchivedEntriesItGivesBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try await acmeAtV1(bugTracker, on: conninfo)
            try BugTrackerIssues(count: 40, seed: 35, nullPriorities: true).insert(into: "tenant_acme", version: "v1", on: connection)
            // Nothing archived yet: the plan says nothing of the archive.
            let first = try await bugTracker(["plan", "--tenant", "acme"], on: conninfo)
            #expect(first.status == 0 && !first.stdout.contains("GIVEN BACK"), "\(first.stdout)")
            #expect(try await bugTracker(["migrate", "--tenant", "acme"], on: conninfo).status == 0)
            #expect(try await bugTracker(["rollback", "--tenant", "acme", "--to", "v1"], on: conninfo).status == 0)

            // What the way down archived, per pair, table and column, as the archive holds it.
            let held = try connection.rows(
                "SELECT step_from || ' → ' || step_to, table_name, column_name, count(*)::text FROM tenant_acme._tm_archive "
                    + "WHERE NOT superseded AND column_name <> '#way back' AND step_from > step_to GROUP BY 1, 2, 3")
            try #require(!held.isEmpty, "the way down archived something")

            let json = try await bugTracker(["plan", "--tenant", "acme", "--json"], on: conninfo)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
            let givenBack = try #require(report["givenBack"] as? [[String: Any]], "\(json.stdout)")
            var total = 0
            var sentences: [String] = []
            for pair in givenBack {
                let name = "\(pair["stepFrom"]!) → \(pair["stepTo"]!)"
                let items = try #require(pair["items"] as? [[String: Any]])
                #expect(pair["entries"] as? Int == items.reduce(0) { $0 + ($1["entries"] as? Int ?? 0) }, "\(pair)")
                for item in items {
                    // Every item counts what the archive holds for its table and column, in model terms.
                    let row = held.first { $0[0] == name && $0[1] == item["table"] as? String && $0[2] == (item["column"] as? String ?? "") }
                    #expect(row?[3] == (item["entries"] as? Int).map(String.init), "\(item) against \(held)")
                    #expect((item["property"] as? String ?? "").first?.isUppercase == true, "\(item)")
                    total += item["entries"] as? Int ?? 0
                    sentences.append("\(item["entries"]!) \(item["kind"]!)")
                }
            }
            #expect(total > 0, "\(json.stdout)")

            // The text, Markdown and HTML plans say the same, per pair and property.
            for format in [["--format", "text"], ["--format", "markdown"], ["--format", "html"]] {
                let plan = try await bugTracker(["plan", "--tenant", "acme"] + format, on: conninfo)
                #expect(plan.status == 0, "\(format): \(plan.stderr)")
                for pair in givenBack {
                    for item in pair["items"] as? [[String: Any]] ?? [] {
                        let sentence = "\(item["entries"]!) \(item["kind"]!) of \(item["property"]!)"
                        #expect(plan.stdout.contains(sentence), "\(format): \(sentence) in \(plan.stdout.suffix(3000))")
                    }
                }
            }

            // The run gives back what the plan said, and says so (text and JSON).
            let up = try await bugTracker(["migrate", "--tenant", "acme", "--json"], on: conninfo)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(up.stdout.utf8)) as? [String: Any], "\(up.stdout)")
            let entry = try #require((document["entries"] as? [[String: Any]])?.first, "\(up.stdout)")
            #expect(entry["restoredEntries"] as? Int == total, "\(up.stdout)")
            #expect(try await bugTracker(["rollback", "--tenant", "acme", "--to", "v1"], on: conninfo).status == 0)
            let again = try await bugTracker(["migrate", "--tenant", "acme"], on: conninfo)
            #expect(again.stdout.contains("\(total) archived values given back"), "\(again.stdout)")
        }
    }
}
