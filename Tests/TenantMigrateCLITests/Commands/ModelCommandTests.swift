import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// `tenant-migrate model import`, run as the executable: from a live schema (then adopted and
/// verified), and from a Core Data bundle (then checked).
@Suite("tenant-migrate model import")
struct ModelCommandTests {
    static let migrations = PackagePaths.root.appendingPathComponent("Migrations").path

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("model-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aTenantsSchemaImportsAndAdoptsAtTheImportedVersion() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let created = try await TenantMigrateExecutable.run(["tenant", "create", "acme", "--version", "v2", "--migrations", Self.migrations, "--database-url", conninfo])
            #expect(created.status == 0, "\(created.stderr)")
            let output = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: output) }
            let imported = try await TenantMigrateExecutable.run([
                "model", "import", "--from-schema", "tenant_acme", "--family", "Legacy", "--version", "v7",
                "--migrations", output.path, "--database-url", conninfo,
            ])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.contains("imported schema tenant_acme as family Legacy, version v7: 2 entities"))
            #expect(imported.stdout.contains("nothing was left out"))
            #expect(imported.stdout.contains("registers the schema at v7"))
            let manifest = try String(contentsOf: output.appendingPathComponent("Legacy/family.yaml"), encoding: .utf8)
            #expect(manifest.contains("family: Legacy\nversions: [v7]"))

            // Another catalog adopts the schema at the imported version; verify is clean.
            let adopt = try await TenantMigrateExecutable.run(["tenant", "adopt", "legacy", "--schema", "tenant_acme", "--catalog", "imported",
                                                               "--migrations", output.path, "--database-url", conninfo])
            #expect(adopt.status == 0, "\(adopt.stderr)")
            let verify = try await TenantMigrateExecutable.run(["verify", "--catalog", "imported", "--migrations", output.path, "--database-url", conninfo])
            #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
            #expect(verify.stdout.contains("legacy: ok"))

            // The family exists now: nothing is overwritten.
            let again = try await TenantMigrateExecutable.run(["model", "import", "--from-schema", "tenant_acme", "--family", "Legacy",
                                                               "--migrations", output.path, "--database-url", conninfo])
            #expect(again.status != 0)
            #expect(again.stderr.contains("Legacy already exists"))
            let missing = try await TenantMigrateExecutable.run(["model", "import", "--from-schema", "nowhere", "--migrations", output.path, "--database-url", conninfo])
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("schema nowhere does not exist"), "\(missing.stderr)")
        }
    }

    @Test func aCoreDataBundleImportsAndPassesCheck() async throws {
        let output = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let bundle = PackagePaths.root.appendingPathComponent("Tests/CoreDataImportTests/Fixtures/Kitchen.xcdatamodeld").path
        let imported = try await TenantMigrateExecutable.run(["model", "import", "--xcdatamodeld", bundle, "--migrations", output.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("as family Kitchen: versions Kitchen → Kitchen-2 → Kitchen-3 (oldest first)"))
        #expect(imported.stdout.contains("not expressed: Kitchen: fetchRequest FavoriteRecipes"))
        let version = try String(contentsOf: output.appendingPathComponent("Kitchen/Kitchen-2.yaml"), encoding: .utf8)
        #expect(version.contains("      method: { type: string, optional: true, renamingIdentifier: instructions }"))
        #expect(version.hasPrefix("# Imported from Kitchen.xcdatamodeld/Kitchen 2.xcdatamodel/contents"))

        let check = try await TenantMigrateExecutable.run(["check", "--offline", "--migrations", output.path, "--family", "Kitchen"])
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        #expect(check.stdout.contains("Kitchen → Kitchen-2: inferred\n"))
        #expect(check.stdout.contains("all 4 steps can migrate"))

        // An order that is not the bundle's versions each once is refused, naming what is wrong.
        let misordered = try await TenantMigrateExecutable.run([
            "model", "import", "--xcdatamodeld", bundle, "--migrations", output.path, "--family", "Other",
            "--version-order", "Kitchen", "Kitchen 3",
        ])
        #expect(misordered.status != 0)
        #expect(misordered.stderr.contains("--version-order leaves out Kitchen 2; give every version of the bundle once"), "\(misordered.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("Other").path))

        let both = try await TenantMigrateExecutable.run(["model", "import", "--xcdatamodeld", bundle, "--from-schema", "x"])
        #expect(both.status != 0)
        #expect(both.stderr.contains("give either --from-schema or --xcdatamodeld, not both"))
    }
}
