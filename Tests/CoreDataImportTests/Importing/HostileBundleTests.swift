import CoreDataImport
import EntityModel
import Foundation
import PostgresTestSupport
import Testing

/// Core Data bundles from elsewhere: a name that holds a line break cannot add to the written model,
/// and a bundle nested far deeper than Core Data writes is refused, naming the file, not a crash.
struct HostileBundleTests {
    static let thing = #"<entity name="Thing" representedClassName="Thing" syncable="YES"><attribute name="label" optional="YES" attributeType="String"/></entity>"#

    /// The family as `model import` writes it: each version's notes in its header.
    static func writeAndLoad(_ imported: CoreDataImporter.Result, into directory: URL) throws -> ModelFamily {
        let headers = Dictionary(uniqueKeysWithValues: imported.family.versionNames.map { name in
            (name, ["Imported from \(imported.sources[name] ?? "?") by a test.", "", "What the import could not carry as it was:"]
                + (imported.versionNotes[name] ?? []).map { "- \($0)" })
        })
        let written = try imported.family.write(into: directory, manifestHeader: ["Imported by a test."], versionHeaders: headers)
        return try ModelFamily.load(from: written)
    }

    /// A configuration named with a line break and YAML (`Cfg<CR>entities:<CR>  Evil: {}`) is a
    /// note; the written family loads back as the family imported, with no entity `Evil`.
    @Test(arguments: ["\r", "\r\n", "\u{85}", "\u{2028}", "\u{2029}", "\n"])
    func aConfigurationNameCannotInjectAnEntity(_ lineBreak: String) throws {
        let directory = try CoreDataBundleFixture.temporaryDirectory("hostile-bundle")
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = "Cfg\(lineBreak)entities:\(lineBreak)  Evil: {}\(lineBreak)#"
        let bundle = try CoreDataBundleFixture.write(
            name: "Hostile", model: Self.thing + "<configuration name=\"\(CoreDataBundleFixture.attribute(name))\"/>", in: directory)
        let imported = try CoreDataImporter.importBundle(at: bundle)
        #expect(imported.notes.contains { $0.element.contains("configuration Cfg") })
        let loaded = try Self.writeAndLoad(imported, into: directory.appendingPathComponent("Migrations"))
        #expect(loaded.versions == imported.family.versions)
        #expect(loaded.latestVersion.entity(named: "Evil") == nil)
    }

    /// 60,000 nested elements are refused with the file and the depth, without a crash.
    @Test func aDeeplyNestedModelIsRefusedNamingTheFile() throws {
        let directory = try CoreDataBundleFixture.temporaryDirectory("deep-bundle")
        defer { try? FileManager.default.removeItem(at: directory) }
        let depth = 60_000
        let nested = String(repeating: "<userInfo>", count: depth) + String(repeating: "</userInfo>", count: depth)
        let bundle = try CoreDataBundleFixture.write(name: "Deep", model: Self.thing + nested, in: directory)
        #expect {
            try CoreDataImporter.importBundle(at: bundle)
        } throws: { error in
            guard case let .unreadable(file, line, reason)? = error as? CoreDataImportError else { return false }
            return file == "Deep.xcdatamodeld/Deep.xcdatamodel/contents" && line > 0 && reason.contains("nested")
        }
    }

    /// Importing is linear in the attributes: two versions of 20,000 attributes each (the second
    /// renaming one by its renaming identifier) cost about ten times what two of 2,000 do. (Sorting
    /// the attributes again on every one appended made it grow with the square, a hundredfold for
    /// ten times the attributes: 347 s against 9 at 20,000.)
    /// The work is counted as the importing thread's processor time, which other processes on a
    /// busy machine do not stretch; the bound (30×) leaves three times the linear ratio.
    @Test func twentyThousandAttributesInTwoVersionsImportInLinearTime() throws {
        let small = try Self.importWideBundle(attributes: 2_000), large = try Self.importWideBundle(attributes: 20_000)
        for (imported, count) in [(small.result, 2_000), (large.result, 20_000)] {
            #expect(imported.family.versionNames == ["Wide", "Wide-2"])
            #expect(imported.family.latestVersion.entity(named: "Wide")?.attribute(named: "renamed0")?.renamingIdentifier == "field0")
            #expect(imported.family.latestVersion.entity(named: "Wide")?.attributes.count == count)
        }
        #expect(ratio(large.time, to: small.time) < 30, "2,000 attributes took \(small.time), 20,000 took \(large.time)")
    }

    /// Imports a bundle of two versions of the entity `Wide` with `attributes` attributes each, the
    /// second renaming `field0` to `renamed0` by its renaming identifier; the import's processor
    /// time (``measuringThreadCPUTime(_:)``) is that of reading the bundle alone.
    static func importWideBundle(attributes count: Int) throws -> (result: CoreDataImporter.Result, time: Duration) {
        let directory = try CoreDataBundleFixture.temporaryDirectory("wide-bundle")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Wide.xcdatamodeld")
        for (version, renamed) in [("Wide", "field0"), ("Wide 2", "renamed0")] {
            let attributes = [#"<attribute name="\#(renamed)" optional="YES" attributeType="Integer 32" elementID="field0"/>"#]
                + (1..<count).map { #"<attribute name="field\#($0)" optional="YES" attributeType="Integer 32"/>"# }
            let contents = #"<?xml version="1.0" encoding="UTF-8"?><model><entity name="Wide">"# + attributes.joined() + "</entity></model>"
            let folder = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        return try measuringThreadCPUTime { try CoreDataImporter.importBundle(at: bundle) }
    }
}
