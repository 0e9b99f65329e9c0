import EntityModel
import Foundation
import Testing

/// YAML anchors and aliases (`&a`, `*a`) are refused in model files, with the file and line of the
/// anchor, before anything is expanded: a few hundred bytes of nested aliases would otherwise
/// expand to gigabytes (a "billion laughs").
struct YAMLAliasTests {
    /// A `json` default whose last key expands to 9^6 (531,441) strings.
    static let bomb = """
        entities:
          Thing:
            attributes:
              payload:
                type: json
                default:
                  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]
                  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
                  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
                  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
                  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
                  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]

        """

    static func refusal(_ body: () throws -> Void) -> ModelDiagnostic? {
        do {
            try body()
        } catch let error as ModelLoadError {
            return error.diagnostics.first { $0.message.contains("alias") }
        } catch {
            return nil
        }
        return nil
    }

    @Test func anAliasBombInAJSONDefaultIsRefusedWithItsLine() throws {
        let found = Self.refusal { _ = try ModelVersion(name: "v1", yaml: Self.bomb, file: "Bomb/v1.yaml") }
        let diagnostic = try #require(found, "the bomb was loaded")
        #expect(diagnostic.file == "Bomb/v1.yaml")
        #expect(diagnostic.line == 7)
    }

    @Test func anyAliasInAVersionFileOrManifestIsRefused() throws {
        let version = "entities:\n  Thing:\n    attributes:\n      a: { type: &t string }\n      b: { type: *t }\n"
        let diagnostic = try #require(Self.refusal { _ = try ModelVersion(name: "v1", yaml: version, file: "T/v1.yaml") })
        #expect(diagnostic.line == 4)

        let root = FileManager.default.temporaryDirectory.appendingPathComponent("aliases-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let family = root.appendingPathComponent("T")
        try FileManager.default.createDirectory(at: family, withIntermediateDirectories: true)
        try "family: &name T\nversions: [v1]\n".write(to: family.appendingPathComponent("family.yaml"), atomically: true, encoding: .utf8)
        try "entities:\n  Thing: {}\n".write(to: family.appendingPathComponent("v1.yaml"), atomically: true, encoding: .utf8)
        let manifest = try #require(Self.refusal { _ = try ModelFamily.load(from: family) })
        #expect(manifest.file == "T/family.yaml" && manifest.line == 1)
    }
}
