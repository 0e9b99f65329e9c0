import Foundation
import LibPQ

/// A PostgreSQL array literal (`{"a",NULL,"b"}`) built value by value, sent as one `text`
/// parameter and read back with `$n::text::type[]`: a batch of rows goes out as one statement per
/// batch (`SELECT … FROM ROWS FROM (unnest($1…), unnest($2…))`), with no COPY and no temporary table.
struct ArrayLiteral {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var isEmpty = true

    /// Appends one element: NULL, or the value's text form, quoted (bytea as `\\x…`).
    mutating func append(_ value: (any PQEncodable)?) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        let bind = value?.postgresBind ?? .null
        guard let data = bind.bytes else {
            bytes += Array("NULL".utf8)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        if bind.format == .binary {
            bytes += Array("\\\\x".utf8)
            for byte in data { bytes += Array(String(format: "%02x", byte).utf8) }
        } else {
            for byte in data {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The literal as a `text` parameter.
    var bind: PQBind {
        PQBind(bytes: bytes + [UInt8(ascii: "}")], format: .text, typeOID: PQOID.text)
    }

    /// `ROWS FROM (pg_catalog.unnest($first::text::type[]), …)`: one column per type, parameters
    /// numbered from `first`.
    static func rows(types: [String], firstParameter first: Int) -> String {
        "ROWS FROM (" + types.enumerated().map { "pg_catalog.unnest($\($0.offset + first)::pg_catalog.text::\($0.element)[])" }
            .joined(separator: ", ") + ")"
    }
}
