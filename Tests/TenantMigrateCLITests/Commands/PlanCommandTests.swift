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

    /// `plan` says how each step would run online, and why, before anything runs; `--json` too.
    @Test func thePlanShowsEachStepsOnlineMode() async throws {
        let migrations = PackagePaths.root.appendingPathComponent("Migrations").path
        let text = try await TenantMigrateExecutable.run(["plan", "--offline", "--from", "v1", "--to", "v3", "--migrations", migrations])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("-- online: shadow: changing recipe.servings to integer") }, "\(text.stdout)")
        // v2 → v3's Swift policies are row-local: caught up in the shadow too.
        #expect(lines.contains { $0.hasPrefix("-- online: shadow: its mappings move data; changed rows are mapped again by id, and its row-local Swift policies") },
                "\(text.stdout)")
        #expect(lines.contains { $0.hasPrefix("online (--online): shadow: built in a shadow schema while") }, "\(text.stdout)")

        let json = try await TenantMigrateExecutable.run(["plan", "--offline", "--from", "v3", "--to", "v2", "--json", "--migrations", migrations])
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let modes = (report?["steps"] as? [[String: Any]])?.compactMap { ($0["online"] as? [String: Any])?["kind"] as? String }
        #expect(modes == ["shadow"], "\(json.stdout)")
    }
}
