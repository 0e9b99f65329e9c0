import EntityModel
import Foundation

/// Converts a Core Data model bundle (`.xcdatamodeld`) into a model family: one version per
/// `.xcdatamodel`, by name or in an order given, Core Data's renaming
/// identifiers carried as the model's, and every element the model cannot carry listed as an
/// ``ImportNote``. Run `check` on the result to see which steps are inferred and which need a
/// mapping model, as Core Data's inferred mapping would tell.
///
/// The XML is read with Foundation's `XMLParser` (FoundationXML on Linux, which needs libxml2).
public enum CoreDataImporter {
    /// The family, and what it could not carry.
    public struct Result: Sendable {
        /// The family: one version per `.xcdatamodel`, oldest first.
        public var family: ModelFamily
        /// Notes about the bundle as a whole (the order of its versions).
        public var bundleNotes: [ImportNote]
        /// What each version could not carry, by version name.
        public var versionNotes: [String: [ImportNote]]
        /// Where each version came from, by version name: `Kitchen.xcdatamodeld/Kitchen 2.xcdatamodel/contents`.
        public var sources: [String: String]

        /// Every note, each version's led by its name (`Kitchen-2: Recipe.id: …`).
        public var notes: [ImportNote] {
            bundleNotes + family.versionNames.flatMap { name in
                (versionNotes[name] ?? []).map { note in
                    var note = note
                    note.element = "\(name): \(note.element)"
                    return note
                }
            }
        }
    }

    /// Imports the bundle at `url` as the family `familyName` (the bundle's name when nil).
    ///
    /// - Parameter versionOrder: the versions, oldest first, each once, by its name in the bundle
    ///   (`Kitchen 2`) or as a version name (`Kitchen-2`); nil to order them by name (numbers as
    ///   numbers). A current version (`.xccurrentversion`) that is not last gets a warning note.
    /// - Throws: ``CoreDataImportError`` naming the file and line at fault, or ``ModelLoadError``
    ///   when a version breaks a rule of the model format (each mistake with its file and line).
    public static func importBundle(at url: URL, familyName: String? = nil, versionOrder: [String]? = nil) throws -> Result {
        let bundle = try XCDataModelBundle.open(url, order: versionOrder)
        let bundleNotes = bundle.notes
        var converted: [CoreDataModelConverter.Converted] = []
        var convertedNotes: [[ImportNote]] = []
        for version in bundle.versions {
            let data: Data
            do {
                data = try Data(contentsOf: version.contents)
            } catch {
                throw CoreDataImportError.unreadable(file: version.displayPath, line: 0, reason: error.localizedDescription)
            }
            var converter = CoreDataModelConverter(xml: try CoreDataXML.parse(data, file: version.displayPath), file: version.displayPath)
            var result = converter.convert()
            if let previous = converted.last { CoreDataRenaming.resolve(&result, after: previous) }
            converted.append(result)
            convertedNotes.append(converter.notes)
        }
        var names: Set<String> = []
        var versions: [ModelVersion] = []
        var sources: [String: String] = [:]
        var versionNotes: [String: [ImportNote]] = [:]
        for (index, version) in bundle.versions.enumerated() {
            var name = versionName(for: version.name)
            while !names.insert(name).inserted { name += "-2" }
            versions.append(try ModelVersion(name: name, entities: converted[index].entities, file: version.displayPath))
            sources[name] = version.displayPath
            versionNotes[name] = convertedNotes[index]
        }
        let family = try ModelFamily(name: familyName ?? versionName(for: bundle.name), versions: versions)
        return Result(family: family, bundleNotes: bundleNotes, versionNotes: versionNotes, sources: sources)
    }

    /// `Kitchen 2` → `Kitchen-2`: letters, digits, `_`, `.` and `-`, as a version name must be.
    static func versionName(for name: String) -> String {
        let cleaned = name.replacing(/[^A-Za-z0-9_.-]+/, with: "-").trimmingCharacters(in: CharacterSet(charactersIn: "-_."))
        return cleaned.isEmpty ? "v" : cleaned
    }
}
