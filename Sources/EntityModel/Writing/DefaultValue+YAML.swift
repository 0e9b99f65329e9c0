import Foundation

extension DefaultValue {
    /// The default as a version file writes it, so that loading it gives this value back: text,
    /// decimals, dates, UUIDs, bytes (base64) and JSON quoted; integers, floating-point numbers and
    /// Booleans plain.
    var yamlText: String {
        switch self {
        case .string(let value): YAMLScalar.quoted(value)
        case .integer(let value): String(value)
        case .decimal(let value): YAMLScalar.quoted(value)
        case .floatingPoint(let value):
            value == .infinity ? ".inf" : (value == -.infinity ? "-.inf" : "\(value)")
        case .bool(let value): value ? "true" : "false"
        case .date(let value): YAMLScalar.quoted(value)
        case .uuid(let value): YAMLScalar.quoted(value)
        case .binary(let bytes): YAMLScalar.quoted(Data(bytes).base64EncodedString())
        case .json(let value), .expression(let value): YAMLScalar.quoted(value)
        }
    }
}
