import Foundation
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// Runs the `tenant-migrate` executable on the package's models with `arguments` and `--json`,
/// expects it to succeed, and returns the tenants' entries of its one JSON report (`entries`:
/// `tenant`, `outcome`, `online`…) with what it printed, for messages.
func migrateJSONEntries(_ arguments: [String], database conninfo: String) async throws -> (entries: [[String: Any]], stdout: String) {
    let output = try await TenantMigrateExecutable.run(arguments + ["--json"], database: conninfo, migrations: URL(fileURLWithPath: migrationsDirectory))
    #expect(output.status == 0, "\(output.stderr)")
    let report = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
    return ((report?["entries"] as? [[String: Any]]) ?? [], output.stdout)
}
