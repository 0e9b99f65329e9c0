/// The type of an attribute, as written in a version file (`type: int16`).
///
/// Each type maps to exactly one PostgreSQL column type; see ``sqlType``.
public enum AttributeType: String, CaseIterable, Hashable, Sendable, Codable {
    /// Text of any length: `text`.
    case string
    /// A 16-bit integer: `smallint`.
    case int16
    /// A 32-bit integer: `integer`.
    case int32
    /// A 64-bit integer: `bigint`.
    case int64
    /// An exact decimal number: `numeric`.
    case decimal
    /// A 64-bit floating-point number: `double precision`.
    case double
    /// A 32-bit floating-point number: `real`.
    case float
    /// A Boolean: `boolean`.
    case bool
    /// A point in time: `timestamptz`.
    case date
    /// A UUID: `uuid`.
    case uuid
    /// Raw bytes: `bytea`.
    case binary
    /// A JSON document: `jsonb`.
    case json

    /// The PostgreSQL column type this attribute type is stored as.
    public var sqlType: SQLType {
        switch self {
        case .string: .text
        case .int16: .smallint
        case .int32: .integer
        case .int64: .bigint
        case .decimal: .numeric
        case .double: .doublePrecision
        case .float: .real
        case .bool: .boolean
        case .date: .timestamptz
        case .uuid: .uuid
        case .binary: .bytea
        case .json: .jsonb
        }
    }
}
