import Foundation

/// Where the package's files are, found from this source file's path (tests run in a source
/// checkout): the `Migrations/` families and the test targets' fixtures.
public enum PackagePaths {
    /// The package root.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The family `name` under the package's `Migrations/`.
    public static func migrationFamily(_ name: String) -> URL {
        root.appendingPathComponent("Migrations").appendingPathComponent(name)
    }

    /// The test-only family `Library` (`Tests/EntityModelTests/Fixtures/Library`), shared by the
    /// model and introspection tests.
    public static var libraryFamily: URL {
        root.appendingPathComponent("Tests/EntityModelTests/Fixtures/Library")
    }

    /// Every directory of the repository that holds a `family.yaml`: the families under
    /// `Migrations/` and the test targets' fixture families, valid or not, sorted by path.
    public static var familyDirectories: [URL] {
        let roots = ["Migrations", "Tests/EntityModelTests/Fixtures", "Tests/MigrationEngineTests/Fixtures", "Tests/TenantMigratorTests/Fixtures"]
        return roots.flatMap { root -> [URL] in
            let directory = self.root.appendingPathComponent(root)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.sorted().map { directory.appendingPathComponent($0) }
                .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("family.yaml").path) }
        }
    }

    /// The test-only family `Tracker` (`Tests/MigrationEngineTests/Fixtures/Tracker`): v1 → v2
    /// renames and narrows a priority, for the tests of failures that name their row.
    public static var trackerFamily: URL {
        root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/Tracker")
    }

    /// The test-only family `BugTracker` (`Tests/MigrationEngineTests/Fixtures/BugTracker`), written
    /// only in YAML: v1 → v2 inferred, v2 → v3 mapped (a status text de-duplicated into a Status
    /// entity, NULL priorities into 0), and back.
    public static var bugTrackerFamily: URL {
        root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/BugTracker")
    }

    /// The family `name`: the test-only `Library`, or a family under `Migrations/` (`Recipes`).
    public static func modelFamily(_ name: String) -> URL {
        name == "Library" ? libraryFamily : migrationFamily(name)
    }
}
