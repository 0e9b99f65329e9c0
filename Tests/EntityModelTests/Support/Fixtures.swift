import EntityModel
import Foundation
import PostgresTestSupport

/// Where this suite's fixtures and golden files are, found from this source
/// file's path (which works in a source checkout, where these tests run).
enum Fixtures {
    /// `Tests/EntityModelTests`.
    static let testsDirectory = PackagePaths.root.appendingPathComponent("Tests/EntityModelTests")
    /// `Tests/EntityModelTests/Fixtures`.
    static let directory = testsDirectory.appendingPathComponent("Fixtures")
    /// `Tests/EntityModelTests/Golden`.
    static let goldenDirectory = testsDirectory.appendingPathComponent("Golden")

    /// A broken family under `Fixtures/BrokenFamilies`.
    static func brokenFamily(_ name: String) -> URL {
        directory.appendingPathComponent("BrokenFamilies").appendingPathComponent(name)
    }

    /// Loads `Fixtures/Broken/<name>.yaml` as version `v1` and returns the diagnostics it raises
    /// (none when it loads).
    static func diagnostics(ofBroken name: String) throws -> [ModelDiagnostic] {
        let url = directory.appendingPathComponent("Broken").appendingPathComponent(name + ".yaml")
        let yaml = try String(contentsOf: url, encoding: .utf8)
        do {
            _ = try ModelVersion(name: "v1", yaml: yaml, file: "Broken/\(name).yaml")
            return []
        } catch {
            return error.diagnostics
        }
    }

    /// The diagnostics loading the family at `url` raises (none when it loads).
    static func diagnostics(ofFamily url: URL) -> [ModelDiagnostic] {
        do {
            _ = try ModelFamily.load(from: url)
            return []
        } catch {
            return error.diagnostics
        }
    }
}
