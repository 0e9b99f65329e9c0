import Foundation
import PostgresTestSupport
import Testing

/// `check` and `plan` list what a step archives or loses in the same words (issue 20).
@Suite("check")
struct CheckCommandTests {
    @Test func checkAndPlanShareOneVocabulary() async throws {
        let recipes = PackagePaths.migrationFamily("Recipes").path
        let check = try await TenantMigrateExecutable.run(["check", "--offline", "--migrations", recipes])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(!check.stdout.contains("destructive"), "\(check.stdout)")
        let dropped = "drops column recipe.prep_minutes (attribute Recipe.prepMinutes) and its values"
        #expect(check.stdout.contains("v2 → v1: inferred\n      archived: \(dropped)"), "\(check.stdout)")
        #expect(check.stdout.contains("archived: policy RecipeTypeToEntree (mapping MeatAndFishToEntree) overwrites recipe.type"), "\(check.stdout)")
        #expect(check.stdout.contains("(depends on the data: counted when the step runs)"), "\(check.stdout)")

        try await TestPostgres.withDatabaseURL { conninfo in
            let plan = try await TenantMigrateExecutable.run(["plan", "--from", "v2", "--to", "v1", "--database-url", conninfo, "--migrations", recipes])
            #expect(plan.status == 0, "\(plan.stderr)")
            #expect(plan.stdout.contains("ARCHIVED: copied to the tenant's archive first and given back on the way down (no consent needed):\n  - \(dropped)"),
                    "\(plan.stdout)")
        }
    }

    /// `check --help` no longer claims to work offline: only `--offline` does.
    @Test func theHelpSaysWhenTheDatabaseIsNeeded() async throws {
        let help = try await TenantMigrateExecutable.run(["check", "--help"])
        #expect(!help.stdout.hasPrefix("OVERVIEW: Check offline"), "\(help.stdout)")
        #expect(help.stdout.contains("--offline: without a database"), "\(help.stdout)")
    }
}
