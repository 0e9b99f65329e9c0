import CoreDataImport
import EntityModel
import Foundation
import Testing

/// How a bundle's versions are found and ordered, as Xcode leaves bundles: `.xccurrentversion`
/// empty, naming a version that is gone, or naming one that is not the newest; and models saved
/// by Xcode 3.
struct XCDataModelBundleTests {
    static let item = #"<entity name="Item"><attribute name="name" attributeType="String"/></entity>"#

    /// Xcode writes `<dict/>` when no current version was ever chosen; the file is optional.
    @Test func anEmptyCurrentVersionFileIsNoCurrentVersion() throws {
        let bundle = try ScratchBundle("Shelf", versions: [("Shelf", Self.item), ("Shelf 2", Self.item)], currentVersion: ScratchBundle.plist(""))
        defer { bundle.remove() }
        let result = try CoreDataImporter.importBundle(at: bundle.url)
        #expect(result.family.versionNames == ["Shelf", "Shelf-2"])
        #expect(result.notes.map(\.description).contains { $0.contains(".xccurrentversion names no current version") }, "\(result.notes)")
    }

    @Test func aCurrentVersionThatIsNotInTheBundleIsSaid() throws {
        let bundle = try ScratchBundle("Shelf", versions: [("Shelf", Self.item), ("Shelf 2", Self.item)], currentVersion: ScratchBundle.currentVersion("Shelf 3"))
        defer { bundle.remove() }
        let result = try CoreDataImporter.importBundle(at: bundle.url)
        #expect(result.family.versionNames == ["Shelf", "Shelf-2"])
        let warning = result.bundleNotes.first { $0.kind == .warning }
        #expect(warning?.description.contains("names Shelf 3, which the bundle does not hold") == true, "\(result.notes)")
    }

    /// The versions go by name (numbers as numbers), as Xcode names them; a current version that
    /// is not last is left where its name puts it, with a warning, and `versionOrder` decides.
    @Test func versionsGoByNameAndAnOrderCanBeGiven() throws {
        // Shelf 2 renames Item.name to title; Shelf 3 renames it again to label.
        let renamed = #"<entity name="Item"><attribute name="title" attributeType="String" elementID="name"/></entity>"#
        let again = #"<entity name="Item"><attribute name="label" attributeType="String" elementID="title"/></entity>"#
        let bundle = try ScratchBundle(
            "Shelf", versions: [("Shelf", Self.item), ("Shelf 2", renamed), ("Shelf 3", again)],
            currentVersion: ScratchBundle.currentVersion("Shelf 2")
        )
        defer { bundle.remove() }
        let byName = try CoreDataImporter.importBundle(at: bundle.url)
        #expect(byName.family.versionNames == ["Shelf", "Shelf-2", "Shelf-3"])
        #expect(byName.family.latestVersion.entity(named: "Item")?.attribute(named: "label")?.renamingIdentifier == "title")
        let warning = byName.bundleNotes.first { $0.kind == .warning }
        #expect(warning?.description.contains("the current version Shelf 2 is not the last") == true, "\(byName.notes)")

        // An order given: each version once, by its name in the bundle or as a version name.
        let given = try CoreDataImporter.importBundle(at: bundle.url, versionOrder: ["Shelf", "Shelf-3", "Shelf 2"])
        #expect(given.family.versionNames == ["Shelf", "Shelf-3", "Shelf-2"])
        #expect(!given.bundleNotes.contains { $0.kind == .warning }, "the order given ends with the current version")
        #expect {
            try CoreDataImporter.importBundle(at: bundle.url, versionOrder: ["Shelf", "Shelf 3"])
        } throws: { "\($0)".contains("--version-order leaves out Shelf 2") }
        #expect {
            try CoreDataImporter.importBundle(at: bundle.url, versionOrder: ["Shelf", "Shelf 2", "Shelf 3", "Shelf 4"])
        } throws: { "\($0)".contains("--version-order names Shelf 4, which the bundle does not hold") }
        #expect {
            try CoreDataImporter.importBundle(at: bundle.url, versionOrder: ["Shelf", "Shelf 2", "Shelf-2", "Shelf 3"])
        } throws: { "\($0)".contains("--version-order names Shelf 2 twice") }
    }

    /// Xcode 3 saved a version as `elements` and `layout` (binary property lists), not `contents`.
    @Test func anXcode3ModelIsNamedAsSuch() throws {
        let bundle = try ScratchBundle("Old", versions: [("Old", Self.item)])
        defer { bundle.remove() }
        let legacy = bundle.url.appendingPathComponent("Old 2.xcdatamodel")
        try FileManager.default.createDirectory(at: legacy, withIntermediateDirectories: true)
        for file in ["elements", "layout"] { try Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74]).write(to: legacy.appendingPathComponent(file)) }
        #expect {
            try CoreDataImporter.importBundle(at: bundle.url)
        } throws: { error in
            "\(error)" == "Old.xcdatamodeld/Old 2.xcdatamodel: a model saved by Xcode 3 (elements and layout, no contents file); "
                + "open the bundle in a current Xcode and save it, which writes the format this importer reads"
        }
        #expect {
            try CoreDataImporter.importBundle(at: legacy)
        } throws: { "\($0)".contains("a model saved by Xcode 3") }
    }
}
