import EntityModel
import Foundation
import Testing

/// What the model writer does with text that came from elsewhere (an imported schema's or bundle's
/// names, in notes and in the family's name): the written files load back as exactly the model
/// written, and nothing is written outside the directory given.
struct ImportedTextWritingTests {
    /// Everything YAML reads as the end of a line (CR, CRLF, NEL, LS, PS), and characters YAML
    /// refuses in a file (C0 and C1 controls, DEL, the non-characters).
    static let breakingText = ["\r", "\r\n", "\u{85}", "\u{2028}", "\u{2029}", "\n", "\u{0B}", "\u{0C}", "\u{01}", "\u{1B}[2K",
                               "\u{7F}", "\u{9B}", "\u{FEFF}", "\u{FFFE}", "\u{202E}"]

    static func thing() throws -> ModelVersion {
        try ModelVersion(name: "v1", entities: [Entity(name: "Thing", attributes: [Attribute(name: "label", type: .string)])])
    }

    /// A note naming an element whose name holds a line break stays one comment: the file loads
    /// back as the version written, with no entity the note smuggled in.
    @Test(arguments: breakingText)
    func aNoteWithAnyLineBreakStaysAComment(_ text: String) throws {
        let version = try Self.thing()
        let payload = "configuration Cfg\(text)entities:\(text)  Evil: {}\(text)Thing: {}\(text)#"
        let header = ["Imported from a test.", "", "What the import could not carry as it was:",
                      "- not expressed: \(payload): the model has entities, attributes and relationships only"]
        let written = version.yamlText(header: header)
        let loaded = try ModelVersion(name: "v1", yaml: written, file: "Imported/v1.yaml")
        // The same model: the same text when written again, the same hash (a loaded version has
        // source locations, the built one none, so they are not compared with ==).
        #expect(loaded.yamlText() == version.yamlText() && loaded.versionHash == version.versionHash, "\(written.debugDescription)")
        #expect(loaded.entity(named: "Evil") == nil)

        let family = try ModelFamily(name: "Imported", versions: [version])
        let manifest = family.manifestText(header: ["Imported from the Core Data model \(payload)."])
        let scalars = manifest.unicodeScalars.split(separator: "\n").map { String(String.UnicodeScalarView($0)) }
        #expect(scalars.filter { !$0.hasPrefix("#") } == ["family: Imported", "versions: [v1]   # oldest first"], "\(manifest.debugDescription)")
    }

    /// A family's name becomes a directory: a name that is not one plain directory name is refused
    /// before anything is written, and nothing appears outside the directory given.
    @Test func aFamilyNameThatIsNotOneDirectoryNameIsRefused() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("family-names-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let migrations = root.appendingPathComponent("a/migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        for name in ["../escaped", "../../escaped", "/../../escaped", "a/b", "/tmp/escaped-\(UUID().uuidString)", ".", "..", "", ".hidden", "x\u{0}y", "x\ry"] {
            let family = try ModelFamily(name: name, versions: [try Self.thing()])
            #expect(throws: FamilyWriteError.self, "\(name.debugDescription)") { try family.write(into: migrations) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["a"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("a").path) == ["migrations"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: migrations.path) == [])
    }
}
