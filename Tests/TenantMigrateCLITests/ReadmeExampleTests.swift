import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// The README's `swift run tenant-migrate …` examples run as written, in the README's order, on a
/// fresh database, and each succeeds: none misses a flag it needs (issue 20: the `rollback`
/// examples no longer carry `--allow-destructive`, which an archived rollback does not need).
@Suite("README examples")
struct ReadmeExampleTests {
    /// Every example command of README.md's sh blocks: its line and its arguments (after
    /// `swift run tenant-migrate`, without the trailing comment).
    static func examples() throws -> [(line: Int, arguments: [String])] {
        let text = try String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)
        var examples: [(Int, [String])] = []
        var inShell = false
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") { inShell = line == "```sh"; continue }
            guard inShell, line.hasPrefix("swift run tenant-migrate ") else { continue }
            let command = line.dropFirst("swift run tenant-migrate ".count)
            examples.append((index + 1, words(String(command.split(separator: "#", maxSplits: 1)[0]))))
        }
        return examples
    }

    /// Shell words: split at spaces, with single quotes.
    static func words(_ text: String) -> [String] {
        var words: [String] = [], current = "", quoted = false, inWord = false
        for character in text {
            if character == "'" { quoted.toggle(); inWord = true } else if character == " " && !quoted {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    @Test func everyExampleRunsAsWritten() async throws {
        let examples = try Self.examples()
        #expect(examples.count >= 20, "\(examples)")
        // Files the examples read or write go to a directory of the test's own, never the clone.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let tenantsFile = scratch.appendingPathComponent("tenants.txt")
        try "# the fleet of the README's deploy example\nhooli\nmassive_dynamic   # a big one\n\nstark\n".write(to: tenantsFile, atomically: true, encoding: .utf8)
        let bundle = PackagePaths.root.appendingPathComponent("Tests/CoreDataImportTests/Fixtures/Kitchen.xcdatamodeld")
        let migrations = PackagePaths.root.appendingPathComponent("Migrations")
        let imported = scratch.appendingPathComponent("Imported")
        try FileManager.default.createDirectory(at: imported, withIntermediateDirectories: true)
        try await TestPostgres.withDatabaseURL { conninfo in
            for (line, written) in examples {
                // `> file`: stdout goes to the file.
                var arguments = written, redirect: URL?
                if let index = arguments.firstIndex(of: ">"), index + 1 < arguments.count {
                    redirect = scratch.appendingPathComponent(arguments[index + 1])
                    arguments.removeSubrange(index...)
                }
                if arguments.starts(with: ["tenant", "adopt"]) || arguments.contains("--from-schema"),
                   let schema = arguments.last(where: { !$0.hasPrefix("-") && $0 != "Shop" }) {
                    // An existing schema: a v3 tenant's tables, under another name and unregistered.
                    _ = try await TenantMigrateExecutable.run(["tenant", "create", "scratch"], database: conninfo, migrations: migrations)
                    try Connection(conninfo).fixtureScript("ALTER SCHEMA tenant_scratch RENAME TO \(schema); DELETE FROM tenant_migrator.tenants WHERE name = 'scratch'")
                }
                arguments = arguments.map { argument in
                    switch argument {
                    case "tenants.txt": tenantsFile.path
                    case "Recipes.xcdatamodeld": bundle.path
                    case let file where file.hasSuffix(".svg") || file.hasSuffix(".html"): scratch.appendingPathComponent(file).path
                    default: argument
                    }
                }
                // A model import writes a new family: into the scratch directory.
                let output = try await TenantMigrateExecutable.run(
                    arguments, database: conninfo, migrations: arguments.first == "model" ? imported : migrations)
                #expect(output.status == 0, "README.md:\(line): tenant-migrate \(written.joined(separator: " ")) exited \(output.status): \(output.stderr)")
                if let redirect {
                    try output.stdout.write(to: redirect, atomically: true, encoding: .utf8)
                    #expect(output.stdout.contains("<html"), "README.md:\(line) writes an HTML document")
                }
            }
        }
    }
}
