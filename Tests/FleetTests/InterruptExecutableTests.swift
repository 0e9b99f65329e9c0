import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// The `tenant-migrate` executable built next to this test bundle, or nil when it is not there.
let tenantMigrateExecutable = TenantMigrateExecutable.url

/// Ctrl-C, end to end: the real executable, a real SIGINT.
@Suite("tenant-migrate and SIGINT")
struct InterruptExecutableTests {
    @Test(.enabled(if: tenantMigrateExecutable != nil, "needs the tenant-migrate executable beside the test bundle"))
    func sigintStopsTheRunGracefullyAndExits130() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try makeRecipesMigrator(conninfo)
            let tenants = names("i", 60)
            _ = try await migrator.createTenants(tenants, version: "v1", jobs: 4)
            try Connection(conninfo, logger: quietLogger).loadRecipes(tenants: tenants, recipes: 20)
            let connection = try Connection(conninfo, logger: quietLogger)
            func migratedCount() throws -> Int {
                try connection.scalar("SELECT count(*)::int FROM tenant_migrator.tenants WHERE version = 'v3'")
            }

            // Output to files, not pipes: draining pipes would block threads of the cooperative pool.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-sigint-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let outputURL = directory.appendingPathComponent("stdout"), errorURL = directory.appendingPathComponent("stderr")
            _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
            let process = Process()
            process.executableURL = tenantMigrateExecutable
            process.environment = ProcessInfo.processInfo.environment.merging([Connection.strictOneStatementVariable: "1"]) { $1 }
            process.arguments = ["migrate", "--all", "--jobs", "2", "--json", "--database-url", conninfo, "--migrations", migrationsDirectory]
            process.standardOutput = try FileHandle(forWritingTo: outputURL)
            process.standardError = try FileHandle(forWritingTo: errorURL)
            try process.run()

            let started = try await waitUntil { try migratedCount() >= 5 }
            #expect(started)
            #expect(try migratedCount() < 60, "the run ended before the interrupt; make it longer")
            process.interrupt()  // SIGINT
            #expect(try await waitUntil { !process.isRunning })
            process.waitUntilExit()
            let stdout = try Data(contentsOf: outputURL)
            let stderr = try String(contentsOf: errorURL, encoding: .utf8)

            #expect(process.terminationReason == .exit)
            #expect(process.terminationStatus == 130, "stderr: \(stderr)")
            #expect(stderr.contains("interrupted: no new tenants start"))
            let report = try JSONSerialization.jsonObject(with: stdout) as? [String: Any]
            let summary = report?["summary"] as? [String: Int]
            #expect(report?["interrupted"] as? Bool == true)
            #expect(summary?["total"] == 60)
            #expect(summary?["failed"] == 0)
            let migrated = summary?["migrated"] ?? -1
            #expect(migrated >= 5 && migrated < 60, "migrated \(migrated)")
            #expect(summary?["notStarted"] == 60 - migrated)

            // The catalog agrees, and no tenant is in between.
            #expect(try migratedCount() == migrated)
            #expect(try connection.tenantVersions().values.allSatisfy { ($0.version == "v1" || $0.version == "v3") && $0.state == "ready" })
            let drifted = try await migrator.verify().filter { !$0.isClean }
            #expect(drifted.isEmpty, "drift: \(drifted.map(\.tenant))")
        }
    }
}
