import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// Issue 35: every `migrate` and `rollback --json`, one tenant or the fleet, success or failure,
/// prints one document of one shape (the fleet report: `entries`, `summary`, and `error` on every
/// failure), and trials and rollbacks say what they did in their own words.
@Suite("migrate and rollback --json: one document shape")
struct MigrateCommandJSONTests {
    /// The run's one JSON document: an object with `entries` and `summary`, or with `error` alone.
    func document(_ arguments: [String], on conninfo: String) async throws -> (status: Int32, object: [String: Any], stdout: String) {
        let output = try await bugTracker(arguments + ["--json"], on: conninfo)
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        try #require(object != nil, "\(arguments): one JSON object: \(output.stdout)\n\(output.stderr)")
        return (output.status, object!, output.stdout)
    }

    func outcomes(_ object: [String: Any]) -> [String] {
        ((object["entries"] as? [[String: Any]]) ?? []).compactMap { $0["outcome"] as? String }
    }

    func summary(_ object: [String: Any]) -> [String: Int] {
        (object["summary"] as? [String: Int]) ?? [:]
    }

    @Test func oneShapeForOneTenantAndTheFleetInSuccessAndFailure() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            #expect(try await bugTracker(["tenant", "create", "acme", "globex", "--version", "v1"], on: conninfo).status == 0)

            // Failures before any result: the error object, for one tenant as for the fleet.
            for arguments in [["migrate", "--tenant", "acme", "--to", "v9"], ["migrate", "--all", "--to", "v9"],
                              ["rollback", "--tenant", "nobody", "--to", "v1"], ["migrate", "--tenant", "nobody"]] {
                let failed = try await document(arguments, on: conninfo)
                #expect(failed.status != 0, "\(arguments)")
                let message = (failed.object["error"] as? [String: Any])?["message"] as? String
                #expect(message?.isEmpty == false, "\(arguments): \(failed.stdout)")
            }

            // Trials: their own words, in the entries and the summary.
            for (arguments, word, key) in [(["migrate", "--tenant", "acme", "--dry-run"], "would-migrate", "wouldMigrate"),
                                           (["migrate", "--all", "--dry-run"], "would-migrate", "wouldMigrate"),
                                           (["migrate", "--tenant", "acme", "--rehearse"], "rehearsed", "rehearsed"),
                                           (["migrate", "--all", "--rehearse"], "rehearsed", "rehearsed")] {
                let trial = try await document(arguments, on: conninfo)
                #expect(trial.status == 0 && !outcomes(trial.object).isEmpty && outcomes(trial.object).allSatisfy { $0 == word }, "\(arguments): \(trial.stdout)")
                #expect(summary(trial.object)[key] == outcomes(trial.object).count && summary(trial.object)["migrated"] == nil, "\(arguments): \(trial.stdout)")
                #expect(trial.object["error"] == nil)
            }

            // One tenant up: the fleet's shape, with one entry.
            let up = try await document(["migrate", "--tenant", "acme", "--to", "v2"], on: conninfo)
            #expect(up.status == 0 && outcomes(up.object) == ["migrated"] && summary(up.object)["migrated"] == 1, "\(up.stdout)")
            #expect(up.object["family"] as? String == "BugTracker" && up.object["target"] as? String == "v2" && up.object["error"] == nil, "\(up.stdout)")
            let fleetUp = try await document(["migrate", "--all", "--to", "v2"], on: conninfo)
            #expect(fleetUp.status == 0 && summary(fleetUp.object)["migrated"] == 1 && summary(fleetUp.object)["skipped"] == 1, "\(fleetUp.stdout)")

            // A rollback dry run and a rollback say so.
            let wouldRollBack = try await document(["rollback", "--tenant", "acme", "--to", "v1", "--dry-run"], on: conninfo)
            #expect(wouldRollBack.status == 0 && outcomes(wouldRollBack.object) == ["would-roll-back"], "\(wouldRollBack.stdout)")

            // A failure with results: the entries say which tenant failed, and the error object is there too.
            let connection = try Connection(conninfo)
            try connection.execute("INSERT INTO tenant_acme.issue (summary, priority) VALUES ('too big for v1', 40000)")
            for arguments in [["rollback", "--tenant", "acme", "--to", "v1"], ["rollback", "--all", "--to", "v1"]] {
                let failed = try await document(arguments, on: conninfo)
                #expect(failed.status == 1 && outcomes(failed.object).contains("failed"), "\(arguments): \(failed.stdout)")
                let error = failed.object["error"] as? [String: Any]
                #expect((error?["message"] as? String)?.contains("acme") == true && error?["sqlState"] as? String == "22003", "\(arguments): \(failed.stdout)")
            }
            try connection.execute("DELETE FROM tenant_acme.issue")
            let down = try await document(["rollback", "--tenant", "acme", "--to", "v1"], on: conninfo)
            #expect(down.status == 0 && outcomes(down.object) == ["rolled-back"] && summary(down.object)["rolledBack"] == 1, "\(down.stdout)")
        }
    }

    /// The text says the same: "rolled back" for a rollback, and a rehearsal says that the way back
    /// gave every value back.
    /// A trial that fails says so in its own words in each tenant's entry too, as its document's
    /// error does: `dry run of v1 → v3 would fail …; nothing was changed`, not `migration v1 → v3
    /// failed … the tenant is still at v1`; a real run keeps the latter.
    @Test func aFailingTrialSpeaksAsATrialInItsEntries() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            #expect(try await bugTracker(["tenant", "create", "acme", "--version", "v1"], on: conninfo).status == 0)
            // Its schema changed by hand: v2 → v3 cannot read Issue.status.
            try Connection(conninfo).execute("ALTER TABLE tenant_acme.issue DROP COLUMN status")
            for (arguments, words) in [(["migrate", "--tenant", "acme", "--dry-run"], "dry run of v1 → v3 would fail"),
                                       (["migrate", "--all", "--dry-run"], "dry run of v1 → v3 would fail"),
                                       (["migrate", "--tenant", "acme", "--rehearse"], "rehearsal of v1 → v3 failed"),
                                       (["migrate", "--all", "--rehearse"], "rehearsal of v1 → v3 failed"),
                                       (["migrate", "--tenant", "acme"], "migration v1 → v3 failed")] {
                let run = try await document(arguments, on: conninfo)
                let error = ((run.object["entries"] as? [[String: Any]])?.first?["error"] as? String) ?? ""
                #expect(run.status == 1 && error.hasPrefix("tenant acme: " + words), "\(arguments): \(run.stdout)")
                let trial = arguments.contains("--dry-run") || arguments.contains("--rehearse")
                #expect(trial ? error.contains("nothing was changed") : error.contains("the tenant is still at v1"), "\(arguments): \(error)")
            }
        }
    }

    @Test func theTextSaysWhatHappened() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try await acmeAtV1(bugTracker, on: conninfo)
            try BugTrackerIssues(count: 30, seed: 35, nullPriorities: true).insert(into: "tenant_acme", version: "v1", on: connection)
            let rehearsal = try await bugTracker(["migrate", "--tenant", "acme", "--rehearse"], on: conninfo)
            #expect(rehearsal.status == 0 && rehearsal.stdout.contains("the way back gave every value back"), "\(rehearsal.stdout)\n\(rehearsal.stderr)")
            let fleetRehearsal = try await bugTracker(["migrate", "--all", "--rehearse"], on: conninfo)
            #expect(fleetRehearsal.status == 0 && fleetRehearsal.stdout.contains("the way back gave every value back"), "\(fleetRehearsal.stdout)")
            #expect(try await bugTracker(["migrate", "--tenant", "acme"], on: conninfo).status == 0)
            let down = try await bugTracker(["rollback", "--tenant", "acme", "--to", "v1"], on: conninfo)
            #expect(down.status == 0 && down.stdout.contains("acme: rolled back v3 → v1"), "\(down.stdout)")
            #expect(!down.stdout.contains("migrated"), "\(down.stdout)")
        }
    }
}
