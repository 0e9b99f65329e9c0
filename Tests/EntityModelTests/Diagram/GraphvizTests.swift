import EntityModel
import Foundation
import Testing

/// Graphviz's `dot` accepts every DOT text the diagrams write. These tests need Graphviz
/// (`.ci/run` installs it); without it they fail, saying so, rather than pass unchecked.
struct GraphvizTests {
    /// Every diagram the tool draws for the example families: each version, and each adjacent
    /// step both ways with its changes marked.
    static func everyDOT() throws -> [(name: String, dot: String)] {
        var texts: [(String, String)] = []
        for family in [try ERDiagramTests.family("Recipes"), try ERDiagramTests.family("Library")] {
            for version in family.versions {
                texts.append(("\(family.name) \(version.name)", ERDiagram(version: version).dot(title: "\(family.name) \(version.name)")))
            }
            for (older, newer) in zip(family.versions, family.versions.dropFirst()) {
                texts.append(("\(older.name) → \(newer.name)", ERDiagram(changesAlong: VersionPath(versions: [older, newer], direction: .up)).dot(title: "up")))
                texts.append(("\(newer.name) → \(older.name)", ERDiagram(changesAlong: VersionPath(versions: [newer, older], direction: .down)).dot(title: "down")))
            }
        }
        let tricky = try ModelVersion(name: "v1", entities: [
            Entity(name: "Quote", attributes: [Attribute(name: "text", type: .string, defaultValue: .string("a \"b\" <c> & d\\e"))]),
        ])
        texts.append(("quotes", ERDiagram(version: tricky).dot(title: "a \"title\" with \\ and <html>")))
        return texts
    }

    @Test func dotAcceptsEveryDiagramAsSVG() throws {
        guard let graphviz = Graphviz.onPath() else {
            Issue.record("Graphviz is not installed (no dot on PATH): install the graphviz package (.ci/run does) to check the DOT output")
            return
        }
        for (name, dot) in try Self.everyDOT() {
            let svg = try graphviz.svg(fromDOT: dot)
            #expect(svg.contains("<svg"), "no SVG for \(name)")
            #expect(!(try graphviz.inlineSVG(fromDOT: dot)).contains("<?xml"), "\(name)")
        }
        #expect(throws: GraphvizError.self) { try graphviz.svg(fromDOT: "digraph { a -> }") }
    }

    @Test func withoutGraphvizTheMessageSaysWhatToInstall() {
        #expect(Graphviz.onPath(environment: ["PATH": "/nonexistent"]) == nil)
        let message = GraphvizError.notInstalled.description
        #expect(message.contains("apt-get install graphviz"))
        #expect(message.contains("--format mermaid"))
    }
}
