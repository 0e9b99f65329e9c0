/// The default value of an attribute, already checked against the attribute's type and held in a
/// canonical form, so that equal defaults compare equal and hash the same however they were written.
public enum DefaultValue: Hashable, Sendable, Codable {
    /// A `string` default.
    case string(String)
    /// An `int16`, `int32` or `int64` default.
    case integer(Int64)
    /// A `decimal` default, as its exact decimal text (e.g. `"1.50"`; scale is kept).
    case decimal(String)
    /// A `double` or `float` default. Never NaN.
    case floatingPoint(Double)
    /// A `bool` default.
    case bool(Bool)
    /// A `date` default, as an ISO-8601 UTC timestamp such as `2024-01-01T00:00:00Z`.
    case date(String)
    /// A `uuid` default, in lowercase hyphenated form.
    case uuid(String)
    /// A `binary` default (written in base64 in a version file).
    case binary([UInt8])
    /// A `json` default, as compact JSON text with sorted keys.
    case json(String)
    /// An SQL expression PostgreSQL evaluates for each new row (`now()`, `CURRENT_TIMESTAMP`,
    /// `gen_random_uuid()`), written `defaultExpression:` in a version file. Held as written; the
    /// column's DDL carries it as it is, so PostgreSQL is what accepts or refuses it.
    case expression(String)

    /// A stable, unambiguous text form used by the version hash.
    var canonicalText: String {
        switch self {
        case .string(let value): "string:" + CanonicalText.quoted(value)
        case .integer(let value): "integer:\(value)"
        case .decimal(let value): "decimal:" + value
        case .floatingPoint(let value): "float:\(value)"
        case .bool(let value): "bool:\(value)"
        case .date(let value): "date:" + value
        case .uuid(let value): "uuid:" + value
        case .binary(let bytes): "binary:" + bytes.hexString
        case .json(let value): "json:" + CanonicalText.quoted(value)
        case .expression(let value): "sql:" + CanonicalText.quoted(value)
        }
    }
}
