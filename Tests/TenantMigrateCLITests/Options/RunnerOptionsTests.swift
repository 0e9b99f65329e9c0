import Foundation
import PostgresTestSupport
import Testing

/// Where the models are: `--migrations` names a directory of families, or one family's (issue 20).
@Suite("Runner options")
struct RunnerOptionsTests {
    @Test func migrationsAcceptsAFamilysOwnDirectory() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            for directory in [PackagePaths.trackerFamily, PackagePaths.migrationFamily("Recipes")] {
                let output = try await TenantMigrateExecutable.run(["status", "--database-url", conninfo, "--migrations", directory.path])
                #expect(output.status == 0 && output.stdout.contains("family \(directory.lastPathComponent): versions"), "\(output.stderr)")
            }
            // Its parent, which holds one family, still works.
            let parent = try await TenantMigrateExecutable.run(["status", "--database-url", conninfo, "--migrations", PackagePaths.root.appendingPathComponent("Migrations").path])
            #expect(parent.status == 0 && parent.stdout.contains("family Recipes"), "\(parent.stderr)")
        }
    }
}
