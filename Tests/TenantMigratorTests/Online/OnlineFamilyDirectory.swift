import Foundation

/// A family written for one online test in a temporary directory: `family.yaml` and one file per
/// version, removed by ``remove()``.
struct OnlineFamilyDirectory {
    let directory: URL

    init(_ family: String, versions: [(String, String)]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(family.lowercased())-\(UUID().uuidString)/\(family)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let names = versions.map(\.0).joined(separator: ", ")
        try "family: \(family)\nversions: [\(names)]\n".write(to: directory.appendingPathComponent("family.yaml"), atomically: true, encoding: .utf8)
        for (name, text) in versions {
            try text.write(to: directory.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8)
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
    }
}
