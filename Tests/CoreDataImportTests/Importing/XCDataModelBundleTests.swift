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
