import Foundation

/// A Core Data model bundle written for a test: `<directory>/<name>.xcdatamodeld/<name>.xcdatamodel/contents`
/// holding `<model>` with the elements given, as Xcode saves them.
public enum CoreDataBundleFixture {
    /// `text` as an XML attribute value: `&`, `<`, `"` and every character outside printable ASCII
    /// as a character reference, so that line breaks survive attribute normalisation.
    public static func attribute(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            default: (0x20..<0x7F).contains(scalar.value) ? String(scalar) : "&#x\(String(scalar.value, radix: 16));"
            }
        }.joined()
    }

    /// Writes the bundle and returns its URL.
    public static func write(name: String, model elements: String, in directory: URL) throws -> URL {
        let bundle = directory.appendingPathComponent("\(name).xcdatamodeld")
        let version = bundle.appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
            \(elements)
            </model>

            """
        try Data(contents.utf8).write(to: version.appendingPathComponent("contents"))
        return bundle
    }

    /// A fresh temporary directory.
    public static func temporaryDirectory(_ prefix: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
