import CoreDataImport
import EntityModel
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MigrationEngine
import PostgresTestSupport
import Testing

/// Seeded generation of model files and Core Data bundles with hostile names and values (control
/// characters, every Unicode line break, quotes, YAML and Markdown syntax, HTML, paths, very long,
/// deeply nested, YAML alias bombs). Each one is either refused clearly (every diagnostic names the
/// file) or read, written, read again to the same model, and drawn in every output format (YAML,
/// Mermaid, DOT, Markdown, HTML) safely; all within bounded time and memory.
struct HostileNamesPropertyTests {
    /// Pieces of hostile text; the first `breaking` of them make any name invalid.
    static let pieces: [String] = [
        "\r", "\r\n", "\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}",            // every line break
        "\u{01}", "\u{1B}[2K", "\u{7F}", "\u{9B}", "\u{202E}", "\u{2066}", "\u{FEFF}", "\u{FFFE}", // controls, bidi, non-characters
        "\"", "'", "`", "```", "\\",                                                        // quotes
        "#", ": ", "- ", "&a", "*a", "!!binary", "{", "}", "[", "]", "|", ">", "%YAML", "---", "...", "? ", "<<: ", // YAML
        "<svg onload=alert(1)>", "&amp;", "*em*", "[l](javascript:x)", "../", "/",       // HTML, Markdown, paths
        "Entrée", "😀",
    ]

    struct Hostile {
        var random: SeededGenerator

        /// A text of one to six pieces, now and then very long; never a valid model name. With
        /// `xml`, only what XML 1.0 can hold.
        mutating func text(xml: Bool = false) -> String {
            let pieces = xml ? HostileNamesPropertyTests.pieces.filter(HostileNamesPropertyTests.xmlCanHold) : HostileNamesPropertyTests.pieces
            var text = (0..<Int.random(in: 1...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            if Int.random(in: 0..<10, using: &random) == 0 { text += String(repeating: "x", count: 3_000) }
            return text
        }

        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    }

    /// `text` as a YAML double-quoted scalar: everything outside printable ASCII as `\u`/`\U`.
    static func yamlQuoted(_ text: String) -> String {
        "\"" + text.unicodeScalars.map { scalar -> String in
            switch scalar {
            case "\"": return "\\\""
            case "\\": return "\\\\"
            case _ where (0x20..<0x7F).contains(scalar.value): return String(scalar)
            case _ where scalar.value <= 0xFFFF: return String(format: "\\u%04X", scalar.value)
            default: return String(format: "\\U%08X", scalar.value)
            }
        }.joined() + "\""
    }

    /// Whether XML 1.0 can hold `text` (as character references where need be).
    static func xmlCanHold(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            [0x9, 0xA, 0xD].contains(scalar.value) || (0x20...0xD7FF).contains(scalar.value) || (0xE000...0xFFFD).contains(scalar.value)
                || scalar.value >= 0x10000
        }
    }

    // MARK: Checks

    /// A refusal names `file` in every diagnostic, or in its message.
    static func expectClearRefusal(_ error: any Error, file: String, _ what: String) {
        switch error {
        case let error as ModelLoadError:
            #expect(!error.diagnostics.isEmpty && error.diagnostics.allSatisfy { $0.file.hasPrefix(file) }, "\(what): \(error)")
        case let error as CoreDataImportError:
            #expect(error.description.contains(file), "\(what): \(error)")
        default:
            Issue.record("\(what): not a clear refusal: \(error)")
        }
    }

    /// Control characters left raw in `text` but line feeds (and tabs).
    static func rawControls(_ text: String) -> [UInt32] {
        text.unicodeScalars.filter { VisibleText.isControl($0) && $0 != "\n" && $0 != "\t" }.map(\.value)
    }

    /// Every output of `family`: each version's YAML read back equal, its Mermaid and DOT diagrams,
    /// and the Markdown and HTML documents of every step; none holds a raw control character.
    static func expectSafeOutputs(of family: ModelFamily, _ what: String) throws {
        for version in family.versions {
            let again = try ModelVersion(name: version.name, yaml: version.yamlText(header: ["round trip"]), file: "again.yaml")
            #expect(again == version, "\(what): \(version.name) did not round-trip")
            let diagram = ERDiagram(version: version)
            let mermaid = diagram.mermaid(title: "\(family.name) \(version.name)")
            #expect(MermaidERSyntax.problems(in: mermaid) == [], "\(what): \(mermaid)")
            #expect(rawControls(mermaid) == [], "\(what): Mermaid")
            #expect(rawControls(diagram.dot(title: family.name)) == [], "\(what): DOT")
        }
        let document = PlanDocument(checking: MigrationPlanner(family: family))
        let markdown = document.markdown()
        #expect(MarkdownSafety.problems(in: markdown, headings: ["# \(family.name)", "## "]) == [], "\(what): Markdown")
        #expect(rawControls(markdown) == [], "\(what): Markdown")
        let html = document.html(graphviz: nil)
        #expect(rawControls(html) == [], "\(what): HTML")
        let (elements, attributes) = try htmlMarkup(html)
        let active: Set<String> = ["script", "svg", "img", "iframe", "a", "object", "embed", "link", "base", "form", "input", "math", "video", "audio"]
        #expect(elements.isDisjoint(with: active), "\(what): HTML elements \(elements)")
        #expect(!attributes.contains { $0.hasPrefix("on") || $0 == "href" || $0 == "src" }, "\(what): HTML attributes \(attributes)")
    }

    /// The element and attribute names of an HTML page the plan document writes (well-formed XML).
    static func htmlMarkup(_ html: String) throws -> (elements: Set<String>, attributes: Set<String>) {
        final class Collector: NSObject, XMLParserDelegate {
            var elements: Set<String> = [], attributes: Set<String> = []
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                elements.insert(name.lowercased())
                self.attributes.formUnion(attributes.keys.map { $0.lowercased() })
            }
        }
        let parser = XMLParser(data: Data(html.utf8))
        let collector = Collector()
        parser.delegate = collector
        guard parser.parse() else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "HTML not well-formed at line \(parser.lineNumber)"]) }
        return (collector.elements, collector.attributes)
    }

    /// The test process's peak memory stays bounded (an alias bomb expanded takes gigabytes). The
    /// peak is the whole process's, every test so far included, hence the generous bound.
    static func expectBoundedMemory(_ what: String) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #expect(usage.ru_maxrss < 4 * 1024 * 1024, "\(what): peak \(usage.ru_maxrss) KB")   // kilobytes on Linux
    }

    // MARK: Model files

    /// A version file: entities with valid or hostile names, hostile text defaults, now and then a
    /// JSON default that is an alias bomb or nested past YAML's limit.
    struct ModelFile {
        var yaml: String
        /// The text default of each attribute, by `Entity.attribute`.
        var defaults: [String: String]
        var expectRefusal: Bool
        var hostile: Hostile
    }

    static func modelFile(seed: UInt64) -> ModelFile {
        var hostile = Hostile(random: SeededGenerator(seed: seed))
        var expectRefusal = false
        var lines = ["entities:"]
        var defaults: [String: String] = [:]
        for entity in 0..<Int.random(in: 1...4, using: &hostile.random) {
            let name = hostile.chance(5) ? hostile.text() : "E\(entity)"
            if name != "E\(entity)" { expectRefusal = true }
            lines += ["  \(Self.yamlQuoted(name)):", "    attributes:"]
            for attribute in 0..<Int.random(in: 1...5, using: &hostile.random) {
                let attributeName = hostile.chance(5) ? hostile.text() : "a\(attribute)"
                if attributeName != "a\(attribute)" { expectRefusal = true }
                let value = hostile.text()
                defaults["\(name).\(attributeName)"] = value
                lines.append("      \(Self.yamlQuoted(attributeName)): { type: string, optional: true, default: \(Self.yamlQuoted(value)) }")
            }
            if hostile.chance(8) {
                expectRefusal = true
                lines += ["      bomb:", "        type: json", "        default:", "          a: &a [x, x, x, x, x, x, x, x, x]"]
                lines += (1..<8).map { level in "          l\(level): &l\(level) [" + Array(repeating: level == 1 ? "*a" : "*l\(level - 1)", count: 9).joined(separator: ", ") + "]" }
            } else if hostile.chance(10) {
                let depth = [50, 5_000].randomElement(using: &hostile.random)!
                if depth > 1_000 { expectRefusal = true }
                lines.append("      nested: { type: json, default: \(String(repeating: "[", count: depth))1\(String(repeating: "]", count: depth)) }")
            }
        }
        return ModelFile(yaml: lines.joined(separator: "\n") + "\n", defaults: defaults, expectRefusal: expectRefusal, hostile: hostile)
    }

    @Test(arguments: 1...16 as ClosedRange<UInt64>)
    func generatedModelFilesRoundTripOrAreRefused(seed: UInt64) throws {
        var file = Self.modelFile(seed: seed)
        let (yaml, defaults, expectRefusal) = (file.yaml, file.defaults, file.expectRefusal)
        let what = "seed \(seed)"
        Self.expectRoundTripOrRefusal(what, refusal: expectRefusal, naming: "Gen/v1.yaml") {
            let version = try ModelVersion(name: "v1", yaml: yaml, file: "Gen/v1.yaml")
            #expect(!expectRefusal, "\(what): loaded what should be refused")
            for entity in version.entities {
                for attribute in entity.attributes where attribute.type == .string {
                    // A YAML reader drops a byte-order mark that starts a value (Foundation's UTF-8
                    // decoding, under Yams): the one change reading a file makes.
                    var expected = defaults["\(entity.name).\(attribute.name)"] ?? "?"
                    if expected.unicodeScalars.first == "\u{FEFF}" { expected.unicodeScalars.removeFirst() }
                    #expect(attribute.defaultValue == .string(expected), "\(what): \(entity.name).\(attribute.name)")
                }
            }
            var changed = version.entities
            for index in changed.indices where !changed[index].attributes.isEmpty {
                changed[index].attributes[0].defaultValue = .string("v2 " + file.hostile.text())
            }
            let family = try ModelFamily(name: "Gen", versions: [version, try ModelVersion(name: "v2", entities: changed)])
            try Self.expectSafeOutputs(of: family, what)
        }
    }

    /// Runs `body`, the round trip of a generated input, which fails only when the input is to be
    /// refused (`expectRefusal`), with a clear refusal naming `file`; either way within a minute
    /// and bounded memory.
    private static func expectRoundTripOrRefusal(_ what: String, refusal expectRefusal: Bool, naming file: String, _ body: () throws -> Void) {
        let clock = ContinuousClock(), start = clock.now
        do {
            try body()
        } catch {
            #expect(expectRefusal, "\(what): refused \(error)")
            expectClearRefusal(error, file: file, what)
        }
        #expect(clock.now - start < .seconds(60), "\(what) took \(clock.now - start)")
        expectBoundedMemory(what)
    }

    // MARK: Core Data bundles

    /// A bundle: entities and attributes with valid or hostile names, hostile text defaults,
    /// configurations, fetch requests and user info named with hostile text, and now and then
    /// elements nested past what Core Data writes.
    static func bundleElements(seed: UInt64) -> (elements: String, expectRefusal: Bool) {
        var hostile = Hostile(random: SeededGenerator(seed: seed))
        // Now and then one value XML cannot hold (a C0 control, U+FFFE), refused as XML.
        let anyText = hostile.chance(10)
        var expectRefusal = false
        var elements: [String] = []
        func value(_ text: String) -> String {
            if !Self.xmlCanHold(text) { expectRefusal = true }
            return CoreDataBundleFixture.attribute(text)
        }
        let entityCount = Int.random(in: 1...3, using: &hostile.random)
        for entity in 0..<entityCount {
            let name = hostile.chance(5) ? hostile.text(xml: true) : "E\(entity)"
            if name != "E\(entity)" { expectRefusal = true }
            var body = ""
            for attribute in 0..<Int.random(in: 1...4, using: &hostile.random) {
                let attributeName = hostile.chance(5) ? hostile.text(xml: true) : "a\(attribute)"
                if attributeName != "a\(attribute)" { expectRefusal = true }
                let text = hostile.text(xml: !anyText)
                // A default that starts with a byte-order mark could not come back from a file.
                if text.unicodeScalars.first == "\u{FEFF}" { expectRefusal = true }
                body += "<attribute name=\"\(value(attributeName))\" optional=\"YES\" attributeType=\"String\" defaultValueString=\"\(value(text))\"/>"
            }
            if hostile.chance(30) { body += "<userInfo><entry key=\"\(value(hostile.text(xml: !anyText)))\" value=\"\(value(hostile.text(xml: !anyText)))\"/></userInfo>" }
            if hostile.chance(30) { body += "<fetchedProperty name=\"\(value(hostile.text(xml: !anyText)))\"/>" }
            elements.append("<entity name=\"\(value(name))\" syncable=\"YES\">\(body)</entity>")
        }
        for _ in 0..<Int.random(in: 0...3, using: &hostile.random) {
            let kind = ["configuration", "fetchRequest", "elements"].randomElement(using: &hostile.random)!
            elements.append("<\(kind) name=\"\(value(hostile.text(xml: !anyText)))\"/>")
        }
        if hostile.chance(20) {
            let depth = [30, 70, 20_000].randomElement(using: &hostile.random)!
            if depth + 1 > 64 { expectRefusal = true }
            elements.append(String(repeating: "<userInfo>", count: depth) + String(repeating: "</userInfo>", count: depth))
        }
        return (elements.joined(separator: "\n"), expectRefusal)
    }

    @Test(arguments: 1...16 as ClosedRange<UInt64>)
    func generatedBundlesRoundTripOrAreRefused(seed: UInt64) throws {
        let (elements, expectRefusal) = Self.bundleElements(seed: seed)
        let directory = try CoreDataBundleFixture.temporaryDirectory("generated-bundle")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try CoreDataBundleFixture.write(name: "Gen", model: elements, in: directory)
        let what = "seed \(seed)"
        Self.expectRoundTripOrRefusal(what, refusal: expectRefusal, naming: "Gen.xcdatamodeld/Gen.xcdatamodel/contents") {
            let imported = try CoreDataImporter.importBundle(at: bundle)
            #expect(!expectRefusal, "\(what): imported what should be refused")
            let headers = Dictionary(uniqueKeysWithValues: imported.family.versionNames.map { name in
                (name, ["Imported by a test.", "", "What the import could not carry as it was:"] + (imported.versionNotes[name] ?? []).map { "- \($0)" })
            })
            let written = try imported.family.write(into: directory.appendingPathComponent("Migrations"), manifestHeader: ["notes: \(imported.notes)"],
                                                    versionHeaders: headers)
            let loaded = try ModelFamily.load(from: written)
            #expect(loaded.versions == imported.family.versions, "\(what): the written family differs from the imported one")
            try Self.expectSafeOutputs(of: loaded, what)
        }
    }

    /// The seeds above reach every outcome: files and bundles that load, and refusals of each kind.
    @Test func theSeedsReachEveryOutcome() {
        let files = (1...16 as ClosedRange<UInt64>).map { Self.modelFile(seed: $0) }
        #expect(files.contains { !$0.expectRefusal } && files.contains { $0.expectRefusal })
        #expect(files.contains { $0.yaml.contains("&a") }, "no alias bomb")
        #expect(files.contains { $0.yaml.contains(String(repeating: "[", count: 2_000)) }, "no nesting past YAML's limit")
        let bundles = (1...16 as ClosedRange<UInt64>).map { Self.bundleElements(seed: $0) }
        #expect(bundles.filter { !$0.expectRefusal }.count >= 4 && bundles.contains { $0.expectRefusal })
        #expect(bundles.contains { $0.elements.contains(String(repeating: "<userInfo>", count: 70)) }, "no nesting past Core Data's")
    }
}
