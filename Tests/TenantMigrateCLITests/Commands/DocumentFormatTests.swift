import Foundation
import PostgresTestSupport
import Testing

/// `plan --format markdown|html` and `check --format html`, run as the executable.
@Suite("plan and check as documents")
struct DocumentFormatTests {
    static let migrations = PackagePaths.root.appendingPathComponent("Migrations").path

    @Test func checkWritesOneHTMLPageForEveryAdjacentPair() async throws {
        // (--offline: without it, the document's check runs the mapping SQL too, as plain `check` does.)
        let output = try await TenantMigrateExecutable.run(["check", "--offline", "--migrations", Self.migrations, "--format", "html"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("The mapping expressions were not checked against PostgreSQL (--offline)."))
        #expect(output.stdout.hasPrefix("<!DOCTYPE html>\n"))
        for heading in ["v1 → v2", "v2 → v1", "v2 → v3", "v3 → v2"] { #expect(output.stdout.contains("<h2>\(heading) ")) }
        #expect(output.stdout.contains("<svg"), "needs Graphviz (.ci/run installs it)")
        #expect(!output.stdout.contains("<script") && !output.stdout.contains("<link"))

        let strict = PackagePaths.root.appendingPathComponent("Tests/TenantMigratorTests/Fixtures").path
        let impossible = try await TenantMigrateExecutable.run(["check", "--offline", "--migrations", strict, "--family", "Strict", "--format", "markdown"])
        #expect(impossible.status == 1)
        #expect(impossible.stdout.contains(": IMPOSSIBLE\n"))
    }

    @Test func planWritesMarkdownAndHTMLAndRunsNothing() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let markdown = try await TenantMigrateExecutable.run(["plan", "--from", "v1", "--to", "v3", "--format", "markdown",
                                                                  "--migrations", Self.migrations, "--database-url", conninfo])
            #expect(markdown.status == 0, "\(markdown.stderr)")
            #expect(markdown.stdout.hasPrefix("# Recipes: v1 → v3\n"))
            #expect(markdown.stdout.contains("```mermaid\nerDiagram\n"))
            #expect(markdown.stdout.contains("| column recipe.instructions (Recipe.instructions) | **carried** | to recipe.method | inferred |"))

            let html = try await TenantMigrateExecutable.run(["plan", "--from", "v2", "--to", "v3", "--format", "html", "--schema", "tenant_acme",
                                                              "--migrations", Self.migrations, "--database-url", conninfo])
            #expect(html.status == 0, "\(html.stderr)")
            #expect(html.stdout.contains("<td>column recipe.name (Recipe.name)</td><td><span class=\"fate\">carried</span></td>"))
            #expect(html.stdout.contains("ALTER TABLE &quot;tenant_acme&quot;.&quot;recipe_ingredient&quot; DROP COLUMN &quot;name&quot;;"))

            let both = try await TenantMigrateExecutable.run(["plan", "--from", "v1", "--to", "v2", "--format", "html", "--json",
                                                              "--migrations", Self.migrations, "--database-url", conninfo])
            #expect(both.status != 0)
            #expect(both.stderr.contains("--json and --format html are alternatives"))
        }
    }
}
