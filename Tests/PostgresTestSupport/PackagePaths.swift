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

    /// The family `name`: the test-only `Library`, or a family under `Migrations/` (`Recipes`).
    public static func modelFamily(_ name: String) -> URL {
        name == "Library" ? libraryFamily : migrationFamily(name)
    }
}
