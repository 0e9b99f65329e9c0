import Foundation
import Testing

/// The Mermaid diagram in README.md's "See your model" is what `tenant-migrate diagram` prints for
/// Recipes v3: the same text as the expected file EntityModelTests holds the renderer to.
@Suite struct READMEDiagramTests {
    @Test func theREADMEDiagramIsTheToolsOutput() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let expected = try String(contentsOf: root.appendingPathComponent("Tests/EntityModelTests/Golden/Diagrams/Recipes-v3.mmd"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```mermaid\n").dropFirst().map { $0.components(separatedBy: "```\n")[0] }
        #expect(blocks == [expected], "README.md's mermaid block differs from `tenant-migrate diagram` for Recipes v3")
    }
}
