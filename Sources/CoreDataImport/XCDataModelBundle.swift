import Foundation

/// A Core Data model on disk: a `.xcdatamodeld` bundle of `.xcdatamodel` versions, each holding a
/// `contents` file, and `.xccurrentversion` naming the current one (or a single `.xcdatamodel`).
///
/// The versions are in the bundle's order: by name, numbers compared as numbers (`Model`,
/// `Model 2`, …, `Model 10`), with the current version last, since it is the newest.
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
    /// The versions, oldest first, the current one last.
    let versions: [Version]
    /// Set when `.xccurrentversion` named a version that is not last by name, so it was moved.
    let reordered: Bool

    static func open(_ url: URL) throws(CoreDataImportError) -> XCDataModelBundle {
        let url = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .notABundle(url.path)
        }
        let name = url.deletingPathExtension().lastPathComponent
        if url.pathExtension == "xcdatamodel" {
            guard let version = version(at: url, in: nil) else { throw .notABundle(url.path) }
            return XCDataModelBundle(name: name, versions: [version], reordered: false)
        }
        guard url.pathExtension == "xcdatamodeld" else { throw .notABundle(url.path) }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        var versions = entries.filter { $0.hasSuffix(".xcdatamodel") }
            .compactMap { version(at: url.appendingPathComponent($0), in: url) }
            .sorted { naturallyPrecedes($0.name, $1.name) }
        guard !versions.isEmpty else { throw .noVersions(url.path) }
        var reordered = false
        if let current = try currentVersionName(in: url), let index = versions.firstIndex(where: { $0.name == current }) {
            reordered = index != versions.count - 1
            versions.append(versions.remove(at: index))
        }
        return XCDataModelBundle(name: name, versions: versions, reordered: reordered)
    }

    private static func version(at url: URL, in bundle: URL?) -> Version? {
        let contents = url.appendingPathComponent("contents")
        guard FileManager.default.fileExists(atPath: contents.path) else { return nil }
        let display = (bundle.map { $0.lastPathComponent + "/" } ?? "") + url.lastPathComponent + "/contents"
        return Version(name: url.deletingPathExtension().lastPathComponent, contents: contents, displayPath: display)
    }

    /// The current version's name from `.xccurrentversion` (a property list whose
    /// `_XCCurrentVersionName` is `Kitchen 3.xcdatamodel`), or nil when the bundle has none.
    private static func currentVersionName(in bundle: URL) throws(CoreDataImportError) -> String? {
        let file = bundle.appendingPathComponent(".xccurrentversion")
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        let display = bundle.lastPathComponent + "/.xccurrentversion"
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let current = plist["_XCCurrentVersionName"] as? String else {
            throw .unreadable(file: display, line: 0, reason: "not a property list with _XCCurrentVersionName")
        }
        guard current.hasSuffix(".xcdatamodel") else {
            throw .unreadable(file: display, line: 0, reason: "_XCCurrentVersionName is \(current), not a .xcdatamodel")
        }
        return String(current.dropLast(".xcdatamodel".count))
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
