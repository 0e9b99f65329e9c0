import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// A tenant's error in a report (a fleet run's table, `--json`'s entries) gives its advice in the
/// command line's words, as the command's own error does: flags and commands, not the Swift API
/// (`migrate(tenant:to:)`, `allowDestructive: true`).
@Suite("Report lines in the command line's words")
struct CommandLineWordsTests {
    /// The `error` of each entry of a move's JSON document.
    static func entryErrors(_ output: TenantMigrateExecutable.Output) throws -> [String] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "\(output.stdout)")
        return (document["entries"] as? [[String: Any]] ?? []).compactMap { $0["error"] as? String }
    }

    @Test func aRollbackAboveTheTenantsVersionNamesTheMigrateCommand() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            _ = try await acmeAtV1(tracker, on: conninfo)
            let advice = "To go forward, use `migrate --tenant acme --to v2`"
            let table = try await tracker(["rollback", "--all", "--to", "v2"], on: conninfo)
            #expect(table.status == 1 && table.stdout.contains(advice) && !table.stdout.contains("(tenant:"), "\(table.stdout)")
            for selection in [["--all"], ["--tenant", "acme"]] {
                let json = try await tracker(["rollback", "--to", "v2", "--json"] + selection, on: conninfo)
                let errors = try Self.entryErrors(json)
                #expect(json.status == 1 && errors.count == 1, "\(selection): \(json.stdout)")
                #expect(errors.allSatisfy { $0.contains(advice) && !$0.contains("(tenant:") }, "\(selection): \(errors)")
            }
            #expect(try version(of: "acme", Connection(conninfo)) == "v1")
        }
    }

    @Test func aRefusedLossNamesTheFlagThatAcceptsIt() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            _ = try await acmeAtV1(tracker, on: conninfo)
            let json = try await tracker(["migrate", "--all", "--no-archive", "--json"], on: conninfo)
            let errors = try Self.entryErrors(json)
            #expect(json.status == 1 && errors.count == 1, "\(json.stdout)")
            #expect(errors.allSatisfy { $0.hasSuffix("\nRe-run with --allow-destructive to accept the loss.") && !$0.contains("allowDestructive") },
                    "\(errors)")
            #expect(try version(of: "acme", Connection(conninfo)) == "v1")
        }
    }
}
