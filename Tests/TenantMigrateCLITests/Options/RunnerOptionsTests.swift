import Foundation
import LibPQ
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

    /// A misspelt `--family` names the families that are there, and runs nothing.
    @Test func aFamilyThatIsNotThereNamesTheFamiliesThatAre() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let root = PackagePaths.root.appendingPathComponent("Migrations")
            for arguments in [["status"], ["status", "--json"], ["tenant", "create", "acme"]] {
                let output = try await TenantMigrateExecutable.run(arguments + ["--database-url", conninfo, "--migrations", root.path, "--family", "Recipe"])
                let said = "Error: no family Recipe in \(root.path): there is no directory Recipe there (the family there: Recipes)\n"
                #expect(output.status == 1 && output.stderr == said, "\(arguments): \(output.stderr)")
            }
            let schemas = try Connection(conninfo).execute("SELECT count(*)::int FROM pg_namespace WHERE nspname = 'tenant_acme'").first?.decode(Int.self, at: 0)
            #expect(schemas == 0)
        }
    }

    /// `--mappings` picks a second set of mapping models over the family's own, for the pairs it
    /// maps; a directory that is not there is an error that names it.
    @Test func mappingsPicksAnotherSetOfMappingModels() async throws {
        let recipes = PackagePaths.migrationFamily("Recipes")
        let declarative = recipes.appendingPathComponent("Mappings/Declarative").path
        let up = try await TenantMigrateExecutable.run(["plan", "--offline", "--from", "v2", "--to", "v3", "--migrations", recipes.path, "--mappings", declarative])
        #expect(up.status == 0 && up.stdout.contains("v2 → v3: mapped by Recipes/Mappings/Declarative/v2-to-v3.yaml"), "\(up.stdout)\(up.stderr)")
        #expect(!up.stdout.contains("-- policy"), "\(up.stdout)")
        let down = try await TenantMigrateExecutable.run(["plan", "--offline", "--from", "v3", "--to", "v2", "--migrations", recipes.path, "--mappings", declarative])
        #expect(down.status == 0 && down.stdout.contains("v3 → v2: mapped by Recipes/Mappings/v3-to-v2.yaml"), "\(down.stdout)\(down.stderr)")

        let missing = try await TenantMigrateExecutable.run(["plan", "--offline", "--from", "v2", "--to", "v3", "--migrations", recipes.path, "--mappings", "/nonexistent/Mappings"])
        #expect(missing.status != 0 && missing.stderr.contains("/nonexistent/Mappings:0: cannot read the directory of mapping models."), "\(missing.stderr)")
    }
}
