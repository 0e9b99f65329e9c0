import Foundation
import TypedSQL

/// A `json` or `jsonb` value, kept as its JSON text.
///
/// ```swift
/// let tags = try row.decode(PQJSON.self, column: "tags").decode([String].self)
/// try connection.execute("INSERT INTO t (doc) VALUES ($1)", [PQJSON(encoding: ["a": 1])])
/// ```
public struct PQJSON: Sendable, Hashable, PQEncodable, PQDecodable, CustomStringConvertible {
    /// The JSON text.
    public var text: String

    public init(text: String) { self.text = text }

    /// Encodes a value with `JSONEncoder` (keys sorted, so equal values give equal text).
    public init<T: Encodable>(encoding value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        text = String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// An object of numbers, written directly rather than by `JSONEncoder` (a tenth of its cost,
    /// for the statistics every migration records): keys sorted, so equal values give equal text;
    /// whole numbers without a fraction; a value that is not finite as `null`.
    public init(numbers: [String: Double]) {
        var text = "{"
        for (index, key) in numbers.keys.sorted().enumerated() {
            if index > 0 { text += "," }
            text += JSONString.quoted(key)
            text += ":"
            let value = numbers[key]!
            if !value.isFinite {
                text += "null"
            } else if value == value.rounded(), abs(value) < 1e15 {
                text += String(Int64(value))
            } else {
                text += "\(value)"
            }
        }
        self.text = text + "}"
    }

    /// Decodes the text with `JSONDecoder`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    public var postgresBind: PQBind { .text(text, typeOID: PQOID.jsonb) }

    public static func decode(from cell: PQCell) throws -> PQJSON {
        PQJSON(text: try cell.requireString(for: PQJSON.self))
    }

    public var description: String { text }
}
