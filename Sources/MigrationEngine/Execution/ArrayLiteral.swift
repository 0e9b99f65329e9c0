import Foundation
import LibPQ

/// A PostgreSQL array literal (`{"a",NULL,"b"}`) built value by value, sent as one `text`
/// parameter and read back with `$n::text::type[]`: a batch of rows goes out as one statement per
/// batch (`SELECT … FROM ROWS FROM (unnest($1…), unnest($2…))`), with no COPY and no temporary table.
struct ArrayLiteral {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var isEmpty = true

    /// Appends one element: NULL, or the value's text form, quoted (bytea as `\\x…`). Integers
    /// and strings, most of what policies write, are written straight into the literal.
    mutating func append(_ value: (any PQEncodable)?) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        switch value {
        case nil:
            bytes.append(contentsOf: Self.null)
            return
        case let integer as Int64:
            appendDecimal(integer)
            return
        case let integer as Int:
            appendDecimal(Int64(integer))
            return
        case let text as String:
            appendQuoted(text.utf8)
            return
        default:
            break
        }
        let bind = value?.postgresBind ?? .null
        guard let data = bind.bytes else {
            bytes.append(contentsOf: Self.null)
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

    private static let null = Array("NULL".utf8)

    /// A string element, quoted, `"` and `\\` escaped.
    private mutating func appendQuoted(_ text: String.UTF8View) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// An integer element, in decimal (no quotes needed).
    private mutating func appendDecimal(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // room for 20 digits, no allocation
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    /// The literal as a `text` parameter.
    var bind: PQBind {
        PQBind(bytes: bytes + [UInt8(ascii: "}")], format: .text, typeOID: PQOID.text)
    }

    /// `ROWS FROM (pg_catalog.unnest($first::text::type[]), …)`: one column per type, parameters
    /// numbered from `first`.
    static func rows(types: [String], firstParameter first: Int) -> SQL {
        // The types are the model's column types (and `bigint`, `text`), as its DDL writes them.
        "ROWS FROM (\(types.enumerated().map { "pg_catalog.unnest($\(int: $0.offset + first)::pg_catalog.text::\(raw: $0.element)[])" as SQL }, joinedBy: ", "))"
    }
}
