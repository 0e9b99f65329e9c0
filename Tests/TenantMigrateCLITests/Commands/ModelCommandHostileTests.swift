import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// `tenant-migrate model import` on schemas and bundles from elsewhere: a schema's name cannot
/// place the family outside `--migrations`, and names print with their control characters
/// escaped, so that no name can rewrite what the terminal shows.
@Suite("tenant-migrate model import: hostile names")
struct ModelCommandHostileTests {
    /// Control characters, bidi overrides and line separators left raw in `text` (a line feed and a
    /// tab are the output's own).
    static func rawControls(_ text: String) -> [String] {
        text.unicodeScalars.filter { scalar in
            let value = scalar.value
            return (value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(value) || [0x2028, 0x2029, 0x200E, 0x200F, 0x061C].contains(value)
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
        }.map { String(format: "U+%04X", $0.value) }
    }

    static let hostile = "\r\u{9B}2K\u{202E}ok\u{2028}\u{85}"

    /// `model import --xcdatamodeld` of a bundle `Spoof` of `model`, written in `directory`, into
    /// its `Migrations`.
    static func importSpoof(model: String, in directory: URL) async throws -> TenantMigrateExecutable.Output {
        let bundle = try CoreDataBundleFixture.write(name: "Spoof", model: model, in: directory)
        return try await TenantMigrateExecutable.run(["model", "import", "--xcdatamodeld", bundle.path,
                                                      "--migrations", directory.appendingPathComponent("Migrations").path])
    }

    /// ``importSpoof(model:in:)`` in a new temporary directory, removed after, with the model
    /// `model` writes around `name` (a Core Data attribute value that ends with ``hostile``).
    static func importSpoof(naming name: String, _ model: (String) -> String) async throws -> TenantMigrateExecutable.Output {
        let directory = try CoreDataBundleFixture.temporaryDirectory("model-import-terminal")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await importSpoof(model: model(CoreDataBundleFixture.attribute(name + hostile)), in: directory)
    }

    @Test func aSchemaNamedLikeAPathCannotWriteOutsideMigrations() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            try connection.execute(#"CREATE SCHEMA "/../../escaped""#)
            try connection.execute(#"CREATE TABLE "/../../escaped".thing (id bigint PRIMARY KEY, label text)"#)
            let root = try CoreDataBundleFixture.temporaryDirectory("model-import-path")
            defer { try? FileManager.default.removeItem(at: root) }
            let migrations = root.appendingPathComponent("a/migrations")
            try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
            let imported = try await TenantMigrateExecutable.run(["model", "import", "--from-schema", "/../../escaped",
                                                                  "--migrations", migrations.path, "--database-url", conninfo])
            #expect(imported.status != 0, "\(imported.stdout)")
            #expect(imported.stderr.contains("/../../escaped") && imported.stderr.contains("--family"), "\(imported.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["a"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("a").path) == ["migrations"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: migrations.path) == [])

            // A family name given by hand is held to the same rule.
            let named = try await TenantMigrateExecutable.run(["model", "import", "--from-schema", "/../../escaped", "--family", "/../../up",
                                                               "--migrations", migrations.path, "--database-url", conninfo])
            #expect(named.status != 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["a"])
        }
    }

    /// A bundle's notes name its elements; a hostile name prints escaped.
    @Test func importNotesPrintHostileNamesEscaped() async throws {
        let imported = try await Self.importSpoof(naming: "Recent") { name in """
            <entity name="Thing" syncable="YES"><attribute name="label" optional="YES" attributeType="String"/></entity>
            <fetchRequest name="\(name)" entity="Thing"/>
            <configuration name="\(name)"/>
            """
        }
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("fetchRequest Recent"), "\(imported.stdout)")
        #expect(Self.rawControls(imported.stdout) == [], "\(imported.stdout.debugDescription)")
        #expect(Self.rawControls(imported.stderr) == [], "\(imported.stderr.debugDescription)")
    }

    /// Validation errors name the hostile entity; it prints escaped, the file still named.
    @Test func validationErrorsPrintHostileNamesEscaped() async throws {
        let imported = try await Self.importSpoof(naming: "Thing") { name in """
            <entity name="\(name)" syncable="YES"><attribute name="label" optional="YES" attributeType="String"/></entity>
            """
        }
        #expect(imported.status != 0)
        #expect(imported.stderr.contains("Spoof.xcdatamodeld/Spoof.xcdatamodel/contents"), "\(imported.stderr)")
        #expect(Self.rawControls(imported.stderr) == [], "\(imported.stderr.debugDescription)")

        // A version file's entity, written with YAML's escapes (\e is ESC).
        let directory = try CoreDataBundleFixture.temporaryDirectory("model-check-terminal")
        defer { try? FileManager.default.removeItem(at: directory) }
        let family = directory.appendingPathComponent("Models/Bad")
        try FileManager.default.createDirectory(at: family, withIntermediateDirectories: true)
        try "family: Bad\nversions: [v1]\n".write(to: family.appendingPathComponent("family.yaml"), atomically: true, encoding: .utf8)
        try "entities:\n  \"Thing\\e[2K\\rok\\u202E\\x9B\": {}\n".write(to: family.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        let check = try await TenantMigrateExecutable.run(["check", "--offline", "--family", "Bad", "--migrations", directory.appendingPathComponent("Models").path])
        #expect(check.status != 0)
        #expect(check.stderr.contains("Bad/v1.yaml:2"), "\(check.stderr)")
        #expect(Self.rawControls(check.stderr) == [], "\(check.stderr.debugDescription)")
    }
}
