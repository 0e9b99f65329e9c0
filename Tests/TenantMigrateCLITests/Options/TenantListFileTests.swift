import Foundation
import LibPQ
import PostgresTestSupport
@testable import TenantMigrateCLI
import Testing

/// `tenant create --from-file`: blank lines and `#` comments, on their own lines or after a name.
@Suite("Tenant list files")
struct TenantListFileTests {
    static func file(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tenants-\(UUID().uuidString).txt")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func blankLinesAndCommentsAreSkippedAlsoAfterAName() throws {
        let url = try Self.file("# customers, one a line\n\nacme\n  globex  # trailing comment\ninitech#no space\n\t\n# the end\numbrella")
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try TenantListFile(path: url.path).names() == ["acme", "globex", "initech", "umbrella"])
    }

    @Test func aBadNameIsReportedWithItsFileAndLine() throws {
        let url = try Self.file("acme\n\n# next one is wrong\nBad Name # here\n")
        defer { try? FileManager.default.removeItem(at: url) }
        #expect {
            try TenantListFile(path: url.path).names()
        } throws: { error in
            "\(error)".hasPrefix("\(url.path):4: invalid tenant name \"Bad Name\"")
        }
    }

    /// A file that is not there, or a directory given for one: one line naming the path and why,
    /// not Foundation's `Error Domain=NSCocoaErrorDomain Code=260 …`; exit 1, no tenant created.
    @Test func aFileThatCannotBeReadIsNamedWithTheReason() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-tenants-\(UUID().uuidString).txt").path
        let directory = FileManager.default.temporaryDirectory.path
        try await TestPostgres.withDatabaseURL { conninfo in
            for (path, reason) in [(missing, "no such file"), (directory, "it is a directory, not a file")] {
                let output = try await TenantMigrateExecutable.run(
                    ["tenant", "create", "acme", "--from-file", path], database: conninfo, migrations: PackagePaths.trackerFamily
                )
                #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
                #expect(output.stderr == "Error: cannot read \(path): \(reason)\n", "\(output.stderr)")
                let tenants = try Connection(conninfo).execute("SELECT count(*)::int FROM pg_namespace WHERE nspname = 'tenant_acme'").first?.decode(Int.self, at: 0)
                #expect(tenants == 0)
            }
        }
    }

    @Test func theCommandCreatesTheNamesOfAFileWithComments() async throws {
        let url = try Self.file("# first wave\nacme   # the big one\n\nglobex\n")
        defer { try? FileManager.default.removeItem(at: url) }
        try await TestPostgres.withDatabaseURL { conninfo in
            let output = try await TenantMigrateExecutable.run(
                ["tenant", "create", "--from-file", url.path, "--version", "v1"], database: conninfo, migrations: PackagePaths.trackerFamily
            )
            #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
            #expect(output.stdout.contains("2 created"), "\(output.stdout)")
            let names = try Connection(conninfo).execute("SELECT name FROM tenant_migrator.tenants ORDER BY name").map { try $0.decode(String.self, at: 0) }
            #expect(names == ["acme", "globex"])
        }
    }
}
