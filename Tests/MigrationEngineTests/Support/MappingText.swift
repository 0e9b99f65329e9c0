import Foundation

/// The text of a mapping file from `source` to `destination` whose entity mappings are
/// `entityMappings` (YAML list items, indented by two).
func mappingFile(from source: String, to destination: String, entityMappings: String) -> String {
    "source: \(source)\ndestination: \(destination)\nentityMappings:\n\(entityMappings)\n"
}

/// The text of a mapping file from `source` to `destination` with one entity mapping,
/// `ItemToItem` (`Item` to `Item`), writing `attributes` (attribute, SQL expression) in order.
func itemToItemMapping(from source: String, to destination: String, attributes: [(String, String)]) -> String {
    let written = attributes.map { "\n      \($0.0): \"\($0.1.replacingOccurrences(of: "\"", with: "\\\""))\"" }.joined()
    return mappingFile(from: source, to: destination, entityMappings: """
          - name: ItemToItem
            source: Item
            destination: Item
            attributes:
        """ + written)
}

/// A copy of the fixture family `name` in a new temporary folder, with `mapping` written as its
/// `Mappings/v2-to-v1.yaml` (the way back the test declares).
func familyCopy(of name: String, wayBack mapping: String) throws -> URL {
    let parent = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
    let directory = parent.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: fixture(name), to: directory)
    try mapping.write(to: directory.appendingPathComponent("Mappings/v2-to-v1.yaml"), atomically: true, encoding: .utf8)
    return directory
}
