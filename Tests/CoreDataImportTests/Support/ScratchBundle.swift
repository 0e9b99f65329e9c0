import Foundation

/// A `.xcdatamodeld` bundle written for one test under a temporary directory, as Xcode lays one
/// out: a `<Name>.xcdatamodel/contents` per version and, when given, `.xccurrentversion`.
struct ScratchBundle {
    /// The bundle's directory.
    let url: URL
    private let parent: URL

    /// Writes `versions` (each a version's name and the `<entity>` elements of its `<model>`).
    init(_ name: String, versions: [(name: String, entities: String)], currentVersion: String? = nil) throws {
        parent = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-\(UUID().uuidString)")
        url = parent.appendingPathComponent("\(name).xcdatamodeld")
        for version in versions {
            let directory = url.appendingPathComponent("\(version.name).xcdatamodel")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(Self.contents(version.entities).utf8).write(to: directory.appendingPathComponent("contents"))
        }
        if let currentVersion { try Data(currentVersion.utf8).write(to: url.appendingPathComponent(".xccurrentversion")) }
    }

    /// A `contents` file around `entities`, with the attributes Xcode writes on `<model>`.
    static func contents(_ entities: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23C71" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        \(entities)
        </model>
        """
    }

    /// `.xccurrentversion` naming `version` (`Model 2`), as Xcode writes it.
    static func currentVersion(_ version: String) -> String {
        plist("\t<key>_XCCurrentVersionName</key>\n\t<string>\(version).xcdatamodel</string>")
    }

    /// A property list whose dictionary holds `body` (`<dict/>` when empty, as Xcode writes it).
    static func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body.isEmpty ? "<dict/>" : "<dict>\n\(body)\n</dict>")
        </plist>
        """
    }

    /// Removes the bundle.
    func remove() { try? FileManager.default.removeItem(at: parent) }
}
