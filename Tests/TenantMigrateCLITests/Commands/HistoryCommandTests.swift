import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// `history [--tenant N] [--limit K] [--json]`: the catalog's record, newest first (issue 20).
@Suite("history")
struct HistoryCommandTests {
    @Test func showsEveryAttemptNewestFirstWithFailuresAndTheirSQLState() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            // Before any tenant: no catalog, no history, and none created by looking.
            let none = try await tracker(["history"], on: conninfo)
            #expect(none.status == 0 && none.stdout.contains("0 entries of family Tracker"), "\(none.stdout)\(none.stderr)")
            #expect(try Connection(conninfo).execute("SELECT 1 FROM pg_namespace WHERE nspname = 'tenant_migrator'").rowCount == 0)

            #expect(try await tracker(["tenant", "create", "acme", "globex", "--version", "v1"], on: conninfo).status == 0)
            try Connection(conninfo).execute("INSERT INTO tenant_globex.issue (title, prio) VALUES ('big', 70000)")
            #expect(try await tracker(["migrate", "--tenant", "acme"], on: conninfo).status == 0)
            #expect(try await tracker(["migrate", "--tenant", "globex"], on: conninfo).status == 1)

            let all = try await tracker(["history", "--json"], on: conninfo)
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]], "\(all.stdout)")
            #expect(entries.map { "\($0["tenant"]!) \($0["operation"]!) \($0["outcome"]!)" }
                    == ["globex migrate failed", "acme migrate succeeded", "globex create succeeded", "acme create succeeded"]
                    || entries.map { "\($0["tenant"]!) \($0["operation"]!) \($0["outcome"]!)" }
                    == ["globex migrate failed", "acme migrate succeeded", "acme create succeeded", "globex create succeeded"], "\(entries)")
            #expect(entries.first?["sqlState"] as? String == "22003")
            #expect((entries.first?["error"] as? String)?.contains("row id 1 holds \"70000\"") == true, "\(entries.first ?? [:])")

            let one = try await tracker(["history", "--tenant", "acme", "--limit", "1"], on: conninfo)
            let lines = one.stdout.split(separator: "\n")
            #expect(lines.count == 3 && lines[1].contains("acme") && lines[1].contains("migrate") && lines[1].contains("succeeded"), "\(one.stdout)")
            #expect(one.stdout.contains("1 entry of tenant acme (the newest 1; --limit shows more)"), "\(one.stdout)")

            let failed = try await tracker(["history", "--tenant", "globex"], on: conninfo)
            #expect(failed.stdout.contains("failed") && failed.stdout.contains("[22003]"), "\(failed.stdout)")
            #expect(try await tracker(["history", "--tenant", "Bad Name"], on: conninfo).status != 0)
        }
    }
}

/// Issue 35: `history` cuts a long error at a word (`of relati [23502]` was cut mid-word) and marks
/// the cut; `--json` keeps the whole.
@Suite("history: errors cut at a word")
struct HistoryErrorCutTests {
    @Test func aLongErrorIsCutBetweenWords() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            #expect(try await tracker(["tenant", "create", "globex", "--version", "v1"], on: conninfo).status == 0)
            try Connection(conninfo).execute("INSERT INTO tenant_globex.issue (title, prio) VALUES ('big', 70000)")
            #expect(try await tracker(["migrate", "--tenant", "globex"], on: conninfo).status == 1)
            let all = try await tracker(["history", "--json"], on: conninfo)
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]], "\(all.stdout)")
            let whole = try #require(entries.first?["error"] as? String).replacingOccurrences(of: "\n", with: " ")
            #expect(whole.count > 100, "the error is long enough to be cut: \(whole)")

            let text = try await tracker(["history", "--tenant", "globex"], on: conninfo)
            let line = try #require(text.stdout.split(separator: "\n").first { $0.contains("failed") }, "\(text.stdout)")
            let start = try #require(line.range(of: String(whole.prefix(20))), "the error's cell: \(line)")
            let cell = String(line[start.lowerBound...])
            #expect(cell.hasSuffix(" … [22003]"), "the cut is marked: \(cell)")
            let kept = String(cell.dropLast(" … [22003]".count))
            #expect(whole.hasPrefix(kept), "\(kept)")
            let next = whole.dropFirst(kept.count).first
            #expect(kept.count < whole.count && next == " ", "cut between words, not inside one: \(kept)|\(whole.dropFirst(kept.count).prefix(10))")
        }
    }
}
