import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// Results on stdout and logs on stderr, into one file (`> log 2>&1`), never interleave mid-line:
/// each line is written whole, in one write (issue 20).
@Suite("Whole lines")
struct StandardStreamTests {
    @Test func stdoutAndStderrIntoOneFileKeepEveryLineWhole() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let tenants = (1...100).map { String(format: "t%03d", $0) }
            let created = try await TenantMigrateExecutable.run(["tenant", "create"] + tenants + ["--version", "v1"], database: conninfo, migrations: PackagePaths.trackerFamily)
            #expect(created.status == 0, "\(created.stderr)")

            // One result line per tenant on stdout (more than a stdio buffer of 4 KiB in all), and
            // every statement logged on stderr between them.
            let output = try await TenantMigrateExecutable.run(
                ["migrate", "--verbose"] + tenants.flatMap { ["--tenant", $0] }, database: conninfo, migrations: PackagePaths.trackerFamily, mergingOutput: true
            )
            #expect(output.status == 0)
            let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let result = try Regex(#"^t\d{3}: migrated v1 → v2 in (\d+ ms|\d+\.\d s) \(\d+ statements?, \d+ rows?, 1 attempt\)$"#)
            for tenant in tenants {
                #expect(lines.contains { $0.hasPrefix(tenant + ": ") && $0.wholeMatch(of: result) != nil },
                        "\(tenant)'s result line is not whole in:\n\(lines.filter { $0.contains(tenant + ":") }.joined(separator: "\n"))")
            }
            #expect(lines.contains { $0.contains(" debug tenant-migrate: ") && $0.contains("ALTER TABLE") }, "the statements are logged")
            // And each result is written when it is known, not when a buffer fills or the process ends.
            let firstResult = lines.firstIndex { $0.hasPrefix("t001: migrated") }
            let secondTenantsLogs = lines.firstIndex { $0.contains(" debug tenant-migrate: ") && $0.contains("tenant=t002") }
            #expect(firstResult != nil && secondTenantsLogs != nil && firstResult! < secondTenantsLogs!, "t001's result comes before t002's statements")
        }
    }
}
