import Foundation
import Yams

/// Converts a YAML mapping or sequence to canonical JSON text, for `json` defaults written as YAML
/// (`default: {}` or `default: [1, 2]`).
enum YAMLJSON {
    /// The canonical JSON text of `node`, or `nil` if it holds something JSON cannot (a non-text key).
    static func json(from node: Node) -> String? {
        value(of: node).flatMap(CanonicalJSON.serialize)
    }

    private static func value(of node: Node) -> Any? {
        switch node {
        case .mapping(let mapping):
            var object: [String: Any] = [:]
            for (key, value) in mapping {
                guard let name = key.scalar?.string, let converted = Self.value(of: value) else { return nil }
                object[name] = converted
            }
            return object
        case .sequence(let sequence):
            let values = sequence.map(value(of:))
            return values.contains { $0 == nil } ? nil : values.compactMap { $0 }
        case .scalar(let scalar):
            guard scalar.style == .plain || scalar.style == .any else { return scalar.string }
            let text = scalar.string
            if ["", "~", "null", "Null", "NULL"].contains(text) { return NSNull() }
            if ["true", "True", "TRUE"].contains(text) { return true }
            if ["false", "False", "FALSE"].contains(text) { return false }
            if let integer = Int(text) { return integer }
            if text.wholeMatch(of: /[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?/) != nil, let double = Double(text) {
                return double
            }
            return text
        case .alias:
            return nil
        }
    }
}
