import Foundation
import PostgresTestSupport
import Testing

/// `tenant-migrate diagram`, run as the executable: Mermaid by default, DOT and SVG on request,
/// to stdout or to a file, and a clear message where Graphviz is missing.
@Suite("tenant-migrate diagram")
struct DiagramCommandTests {
    static let migrations = PackagePaths.root.appendingPathComponent("Migrations").path
    static func golden(_ name: String) throws -> String {
        try String(contentsOf: PackagePaths.root.appendingPathComponent("Tests/EntityModelTests/Golden/Diagrams/\(name)"), encoding: .utf8)
    }

    /// An output file that cannot be written: its path and why, in words (not "The operation could
    /// not be completed"); exit 1, nothing on stdout.
    @Test func anOutputThatCannotBeWrittenSaysWhy() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-directory-\(UUID().uuidString)")
        let output = missing.appendingPathComponent("v1.mmd").path
        let run = try await TenantMigrateExecutable.run(["diagram", "--migrations", Self.migrations, "--output", output])
        #expect(run.status == 1 && run.stdout.isEmpty, "\(run.stdout)")
        #expect(run.stderr == "Error: cannot write \(output): the directory \(missing.path) does not exist\n", "\(run.stderr)")
    }

    @Test func mermaidByDefaultDOTAndSVGOnRequest() async throws {
        let latest = try await TenantMigrateExecutable.run(["diagram", "--migrations", Self.migrations])
        #expect(latest.status == 0, "\(latest.stderr)")
        #expect(latest.stdout == (try Self.golden("Recipes-v3.mmd")))

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diagram-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let dotFile = directory.appendingPathComponent("v1.dot").path
        let dot = try await TenantMigrateExecutable.run(["diagram", "--migrations", Self.migrations, "--version", "v1", "--format", "dot", "--output", dotFile])
        #expect(dot.status == 0 && dot.stdout.isEmpty, "\(dot.stderr)")
        #expect(try String(contentsOfFile: dotFile, encoding: .utf8) == (try Self.golden("Recipes-v1.dot")))

        let svg = try await TenantMigrateExecutable.run(["diagram", "--migrations", Self.migrations, "--format", "svg"])
        #expect(svg.status == 0, "\(svg.stderr)")
        #expect(svg.stdout.contains("<svg") && svg.stdout.contains("RecipeIngredient"), "needs Graphviz (.ci/run installs it): \(svg.stderr)")

        let unknown = try await TenantMigrateExecutable.run(["diagram", "--migrations", Self.migrations, "--version", "v9"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("family Recipes has no version v9 (versions: v1, v2, v3)"))
    }

    @Test func withoutGraphvizSVGFailsWithAClearMessage() async throws {
        let output = try await TenantMigrateExecutable.run(["diagram", "--migrations", Self.migrations, "--format", "svg"], environment: ["PATH": "/nonexistent"])
        #expect(output.status != 0)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains("Graphviz is not installed (no dot on PATH)"), "\(output.stderr)")
        #expect(output.stderr.contains("--format mermaid"))
        #expect(!output.stderr.contains("Fatal error") && !output.stderr.contains("Stack"))
    }
}
