import Foundation

/// Compact JSON text with sorted keys, so that `json` defaults compare and hash by content.
enum CanonicalJSON {
    /// The canonical text of the JSON document `text`, or `nil` if it is not JSON.
    static func canonicalize(_ text: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            return nil
        }
        return serialize(object)
    }

    /// The canonical text of a JSON-compatible value (dictionaries with string keys, arrays, strings,
    /// numbers, Booleans, `NSNull`).
    static func serialize(_ object: Any) -> String? {
        guard let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]
        ) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
