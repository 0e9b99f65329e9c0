import ChildProcesses
import EmbeddedPostgres
import Foundation
import PostgresTestSupport
@testable import TenantMigrateCLI
import Testing

/// With no database configured, `tenant-migrate` starts its embedded server, and says so in the
/// command's own summary line, not only in a note on stderr (issue 20).
@Suite("Database resolution")
struct DatabaseResolverTests {
    /// Run with `ChildProcess`: the server the command starts inherits the command's descriptors,
    /// so a parent that waited for them to close would never see the command end.
    @Test(.enabled(if: TenantMigrateExecutable.url != nil, "needs the tenant-migrate executable beside the test bundle"))
    func theEmbeddedServerIsNamedInTheSummaryLine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tenant-migrate-embedded-\(UUID().uuidString)")
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = nil
        for variable in DatabaseResolver.libpqVariables { environment[variable] = nil }
        environment["TENANT_MIGRATE_EMBEDDED_DIR"] = directory.path
        let executable = try #require(TenantMigrateExecutable.url).path
        func run(_ arguments: [String]) async throws -> ChildProcess.Outcome {
            try await ChildProcess(executable, arguments, environment: environment).finished()
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let status = try await run(["status", "--migrations", PackagePaths.trackerFamily.path])
        let stopped = try await run(["embedded", "stop"])
        #expect(status.status == 0, "\(status.output)")
        #expect(status.output.contains("0 tenants, 0 behind v2 (embedded PostgreSQL in \(directory.path))"), "\(status.output)")
        #expect(status.output.contains("no database configured"), "\(status.output)")
        #expect(stopped.status == 0, "\(stopped.output)")
    }
}
