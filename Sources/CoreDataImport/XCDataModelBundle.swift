import EntityModel
import Foundation

/// A Core Data model on disk: a `.xcdatamodeld` bundle of `.xcdatamodel` versions, each holding a
/// `contents` file, and `.xccurrentversion` naming the current one (or a single `.xcdatamodel`).
///
/// The versions are in the order given, else by name, numbers compared as numbers (`Model`,
/// `Model 2`, …, `Model 10`), as Xcode names the versions it adds. The current version is not
/// moved: a bundle's current version is often an older one chosen again, and putting it last
/// would turn the renames between them around. Where it is not last, a warning says so.
struct XCDataModelBundle: Sendable {
    /// One `.xcdatamodel`.
    struct Version: Sendable {
        /// The directory's name without `.xcdatamodel`: `Kitchen 2`.
        var name: String
        /// Its `contents` file.
        var contents: URL
        /// `Kitchen.xcdatamodeld/Kitchen 2.xcdatamodel/contents`, for messages.
        var displayPath: String
    }

    /// The bundle's name without its extension: `Kitchen`.
    let name: String
    /// The versions, oldest first.
    let versions: [Version]
    /// What the order of the versions rests on, where it may be wrong (the current version not
    /// last, `.xccurrentversion` naming no version or a missing one).
    let notes: [ImportNote]

    /// Opens the bundle at `url`, its versions in `order` (each version once, by its name in the
    /// bundle, `Kitchen 2`, or as a version name, `Kitchen-2`) or else by name.
    static func open(_ url: URL, order: [String]? = nil) throws(CoreDataImportError) -> XCDataModelBundle {
        let url = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .notABundle(url.path)
        }
        let name = url.deletingPathExtension().lastPathComponent
        if url.pathExtension == "xcdatamodel" {
            guard let version = try version(at: url, in: nil) else { throw .notABundle(url.path) }
            return XCDataModelBundle(name: name, versions: [version], notes: [])
        }
        guard url.pathExtension == "xcdatamodeld" else { throw .notABundle(url.path) }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        var versions: [Version] = []
        for entry in entries where entry.hasSuffix(".xcdatamodel") {
            if let version = try version(at: url.appendingPathComponent(entry), in: url) { versions.append(version) }
        }
        versions.sort { naturallyPrecedes($0.name, $1.name) }
        guard !versions.isEmpty else { throw .noVersions(url.path) }
        if let order { versions = try ordered(versions, as: order) }

        var notes: [ImportNote] = []
        let currentFile = url.lastPathComponent + "/.xccurrentversion"
        switch try currentVersionName(in: url) {
        case .none:
            break
        case .some(nil):
            notes.append(ImportNote(.adapted, "version order", "\(currentFile) names no current version; the versions go \(order == nil ? "by name" : "in the order given")"))
        case .some(let current?):
            if !versions.contains(where: { $0.name == current }) {
                notes.append(ImportNote(.warning, "version order", "\(currentFile) names \(current), which the bundle does not hold; the versions go \(order == nil ? "by name" : "in the order given")"))
            } else if versions.last?.name != current {
                notes.append(ImportNote(.warning, "version order", order == nil
                    ? "the current version \(current) is not the last by name (\(versions.map(\.name).joined(separator: ", "))); "
                        + "the versions go by name: if another order is meant, give it with --version-order"
                    : "the current version \(current) is not the last of the order given"))
            }
        }
        return XCDataModelBundle(name: name, versions: versions, notes: notes)
    }

    /// `versions` in `order`, each named by its name in the bundle or as a version name.
    private static func ordered(_ versions: [Version], as order: [String]) throws(CoreDataImportError) -> [Version] {
        var remaining = versions, result: [Version] = []
        for name in order {
            guard let version = versions.first(where: { $0.name == name || CoreDataImporter.versionName(for: $0.name) == name }) else {
                throw .badOrder("--version-order names \(name), which the bundle does not hold (it holds \(versions.map(\.name).joined(separator: ", ")))")
            }
            guard let index = remaining.firstIndex(where: { $0.name == version.name }) else {
                throw .badOrder("--version-order names \(version.name) twice")
            }
            result.append(remaining.remove(at: index))
        }
        guard remaining.isEmpty else {
            throw .badOrder("--version-order leaves out \(remaining.map(\.name).joined(separator: ", ")); give every version of the bundle once")
        }
        return result
    }

    /// The version in the `.xcdatamodel` directory `url`; nil when it holds no model at all.
    ///
    /// - Throws: when it holds a model in Xcode 3's format (`elements` and `layout`, binary
    ///   property lists), which only Xcode reads: saving it again in Xcode writes `contents`.
    private static func version(at url: URL, in bundle: URL?) throws(CoreDataImportError) -> Version? {
        let display = (bundle.map { $0.lastPathComponent + "/" } ?? "") + url.lastPathComponent
        let contents = url.appendingPathComponent("contents")
        guard FileManager.default.fileExists(atPath: contents.path) else {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("elements").path) {
                throw .unreadable(file: display, line: 0, reason: "a model saved by Xcode 3 (elements and layout, no contents file); "
                    + "open the bundle in a current Xcode and save it, which writes the format this importer reads")
            }
            return nil
        }
        return Version(name: url.deletingPathExtension().lastPathComponent, contents: contents, displayPath: display + "/contents")
    }

    /// The current version's name from `.xccurrentversion` (a property list whose
    /// `_XCCurrentVersionName` is `Kitchen 3.xcdatamodel`): nil when the bundle has no such file,
    /// `.some(nil)` when the file names none (Xcode writes `<dict/>` when none was ever chosen).
    private static func currentVersionName(in bundle: URL) throws(CoreDataImportError) -> String?? {
        let file = bundle.appendingPathComponent(".xccurrentversion")
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        let display = bundle.lastPathComponent + "/.xccurrentversion"
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            throw .unreadable(file: display, line: 0, reason: "not a property list of a dictionary")
        }
        guard let value = plist["_XCCurrentVersionName"] else { return .some(nil) }
        guard let current = value as? String, current.hasSuffix(".xcdatamodel") else {
            throw .unreadable(file: display, line: 0, reason: "_XCCurrentVersionName is \(value), not a .xcdatamodel")
        }
        return .some(String(current.dropLast(".xcdatamodel".count)))
    }

    /// Whether `a` comes before `b` when runs of digits compare as numbers: `Model` < `Model 2` <
    /// `Model 10`.
    static func naturallyPrecedes(_ a: String, _ b: String) -> Bool {
        func chunks(_ text: String) -> [String] {
            text.lowercased().matches(of: /[0-9]+|[^0-9]+/).map { String($0.output) }
        }
        for (left, right) in zip(chunks(a), chunks(b)) where left != right {
            if let x = Int(left), let y = Int(right) { return x < y }
            return left < right
        }
        return chunks(a).count < chunks(b).count
    }
}
