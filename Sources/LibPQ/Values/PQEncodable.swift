import Foundation

/// A Swift value that can be sent as a statement parameter.
///
/// Parameters always travel separately from the SQL text (`$1`, `$2`, …); values are never
/// interpolated into statements.
public protocol PQEncodable {
    /// The value in wire form.
    var postgresBind: PQBind { get }
}

extension Optional: PQEncodable where Wrapped: PQEncodable {
    public var postgresBind: PQBind { self?.postgresBind ?? .null }
}

extension String: PQEncodable {
    /// Strings are sent untyped, so the server reads them as a literal of whatever type the context needs.
    public var postgresBind: PQBind { .text(self) }
}

extension Substring: PQEncodable {
    public var postgresBind: PQBind { .text(String(self)) }
}

extension Int16: PQEncodable {
    public var postgresBind: PQBind { .text(String(self), typeOID: PQOID.int2) }
}

extension Int32: PQEncodable {
    public var postgresBind: PQBind { .text(String(self), typeOID: PQOID.int4) }
}

extension Int64: PQEncodable {
    public var postgresBind: PQBind { .text(String(self), typeOID: PQOID.int8) }
}

extension Int: PQEncodable {
    public var postgresBind: PQBind { .text(String(self), typeOID: PQOID.int8) }
}

extension Double: PQEncodable {
    public var postgresBind: PQBind { .text(postgresText(self), typeOID: PQOID.float8) }
}

extension Float: PQEncodable {
    public var postgresBind: PQBind { .text(postgresText(Double(self)), typeOID: PQOID.float4) }
}

private func postgresText(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value > 0 ? "Infinity" : "-Infinity" }
    return "\(value)"
}

extension Bool: PQEncodable {
    public var postgresBind: PQBind { .text(self ? "t" : "f", typeOID: PQOID.bool) }
}

extension Decimal: PQEncodable {
    public var postgresBind: PQBind {
        .text(NSDecimalNumber(decimal: self).description(withLocale: Locale(identifier: "en_US_POSIX")), typeOID: PQOID.numeric)
    }
}

extension UUID: PQEncodable {
    public var postgresBind: PQBind { .text(uuidString.lowercased(), typeOID: PQOID.uuid) }
}

extension Data: PQEncodable {
    /// Sent in binary format, so bytes need no escaping.
    public var postgresBind: PQBind { PQBind(bytes: Array(self), format: .binary, typeOID: PQOID.bytea) }
}

extension Date: PQEncodable {
    /// Sent as an ISO 8601 timestamptz in UTC, with microseconds.
    public var postgresBind: PQBind { .text(PQTimestamp.format(self), typeOID: PQOID.timestamptz) }
}
