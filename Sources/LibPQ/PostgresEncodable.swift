import Foundation

/// A Swift value that can be sent as a statement parameter.
///
/// Parameters always travel separately from the SQL text (`$1`, `$2`, …); values are never
/// interpolated into statements.
public protocol PostgresEncodable {
    /// The value in wire form.
    var postgresBind: PostgresBind { get }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresBind: PostgresBind { self?.postgresBind ?? .null }
}

extension String: PostgresEncodable {
    /// Strings are sent untyped, so the server reads them as a literal of whatever type the context needs.
    public var postgresBind: PostgresBind { .text(self) }
}

extension Substring: PostgresEncodable {
    public var postgresBind: PostgresBind { .text(String(self)) }
}

extension Int16: PostgresEncodable {
    public var postgresBind: PostgresBind { .text(String(self), typeOID: PostgresOID.int2) }
}

extension Int32: PostgresEncodable {
    public var postgresBind: PostgresBind { .text(String(self), typeOID: PostgresOID.int4) }
}

extension Int64: PostgresEncodable {
    public var postgresBind: PostgresBind { .text(String(self), typeOID: PostgresOID.int8) }
}

extension Int: PostgresEncodable {
    public var postgresBind: PostgresBind { .text(String(self), typeOID: PostgresOID.int8) }
}

extension Double: PostgresEncodable {
    public var postgresBind: PostgresBind { .text(postgresText(self), typeOID: PostgresOID.float8) }
}

extension Float: PostgresEncodable {
    public var postgresBind: PostgresBind { .text(postgresText(Double(self)), typeOID: PostgresOID.float4) }
}

private func postgresText(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value > 0 ? "Infinity" : "-Infinity" }
    return "\(value)"
}

extension Bool: PostgresEncodable {
    public var postgresBind: PostgresBind { .text(self ? "t" : "f", typeOID: PostgresOID.bool) }
}

extension Decimal: PostgresEncodable {
    public var postgresBind: PostgresBind {
        .text(NSDecimalNumber(decimal: self).description(withLocale: Locale(identifier: "en_US_POSIX")), typeOID: PostgresOID.numeric)
    }
}

extension UUID: PostgresEncodable {
    public var postgresBind: PostgresBind { .text(uuidString.lowercased(), typeOID: PostgresOID.uuid) }
}

extension Data: PostgresEncodable {
    /// Sent in binary format, so bytes need no escaping.
    public var postgresBind: PostgresBind { PostgresBind(bytes: Array(self), format: .binary, typeOID: PostgresOID.bytea) }
}

extension Date: PostgresEncodable {
    /// Sent as an ISO 8601 timestamptz in UTC, with microseconds.
    public var postgresBind: PostgresBind { .text(PostgresTimestamp.format(self), typeOID: PostgresOID.timestamptz) }
}
