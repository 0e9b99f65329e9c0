import Foundation
import PostgresTestSupport
import Testing

/// `plan --offline` renders a plan with no database at all, exactly as `plan` does against one.
struct PlanCommandTests {
    @Test func anOfflinePlanIsTheSameTextAsAPlanAgainstADatabase() async throws {
        let migrations = PackagePaths.root.appendingPathComponent("Migrations").path
        let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("no-embedded-\(UUID().uuidString)").path
        // No URL, no PG* variable, and an embedded-server directory that must stay unused.
        var isolated: [String: String?] = ["DATABASE_URL": nil, "TENANT_MIGRATE_EMBEDDED_DIR": nowhere]
        for name in ["PGHOST", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE"] { isolated[name] = nil }
        let offline = try await TenantMigrateExecutable.run(
            ["plan", "--offline", "--from", "v1", "--to", "v3", "--migrations", migrations], environment: isolated)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(!FileManager.default.fileExists(atPath: nowhere), "the offline plan started an embedded server")
        #expect(offline.stdout.contains("CREATE TABLE \"<tenant schema>\".\"ingredient\""), "\(offline.stdout)")
        #expect(offline.stdout.contains("-- policy"), "the policies' stages are listed")

        try await TestPostgres.withDatabaseURL { conninfo in
            let online = try await TenantMigrateExecutable.run(
                ["plan", "--from", "v1", "--to", "v3", "--migrations", migrations, "--database-url", conninfo], environment: isolated)
            #expect(online.status == 0, "\(online.stderr)")
            #expect(online.stdout == offline.stdout)
        }
    }
}
