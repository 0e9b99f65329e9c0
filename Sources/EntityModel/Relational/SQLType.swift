/// A PostgreSQL column type used by the relational layer.
///
/// The raw value is the type's name as PostgreSQL spells it in DDL and in `format_type()`.
public enum SQLType: String, CaseIterable, Hashable, Sendable, Codable {
    /// `text`
    case text
    /// `smallint`
    case smallint
    /// `integer`
    case integer
    /// `bigint`
    case bigint
    /// `numeric`
    case numeric
    /// `double precision`
    case doublePrecision = "double precision"
    /// `real`
    case real
    /// `boolean`
    case boolean
    /// `timestamp with time zone`, written `timestamptz`
    case timestamptz
    /// `uuid`
    case uuid
    /// `bytea`
    case bytea
    /// `jsonb`
    case jsonb
}
