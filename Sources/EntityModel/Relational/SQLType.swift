/// A PostgreSQL column type used by the relational layer.
///
/// The raw value is the type's name as PostgreSQL spells it in DDL and, but for `timestamptz`, in
/// `format_type()`: `text`, `character varying(255)`, `numeric(12,2)`, `timestamp(3) without time zone`,
/// `text[]`. The model's own types are the static members (`.text`, `.bigint`, …); a version file can
/// name any other type PostgreSQL has built in through ``PostgreSQLTypeName``.
public struct SQLType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The type as written in DDL.
    public let rawValue: String

    /// A type by its DDL spelling; nothing checks that PostgreSQL knows it.
    public init(rawValue: String) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    /// `text`
    public static let text = SQLType(rawValue: "text")
    /// `smallint`
    public static let smallint = SQLType(rawValue: "smallint")
    /// `integer`
    public static let integer = SQLType(rawValue: "integer")
    /// `bigint`
    public static let bigint = SQLType(rawValue: "bigint")
    /// `numeric`
    public static let numeric = SQLType(rawValue: "numeric")
    /// `double precision`
    public static let doublePrecision = SQLType(rawValue: "double precision")
    /// `real`
    public static let real = SQLType(rawValue: "real")
    /// `boolean`
    public static let boolean = SQLType(rawValue: "boolean")
    /// `timestamp with time zone`, written `timestamptz`
    public static let timestamptz = SQLType(rawValue: "timestamptz")
    /// `uuid`
    public static let uuid = SQLType(rawValue: "uuid")
    /// `bytea`
    public static let bytea = SQLType(rawValue: "bytea")
    /// `jsonb`
    public static let jsonb = SQLType(rawValue: "jsonb")

    /// The types the model's own attribute types map to.
    public static let allCases: [SQLType] = [.text, .smallint, .integer, .bigint, .numeric, .doublePrecision, .real, .boolean,
                                             .timestamptz, .uuid, .bytea, .jsonb]
}
