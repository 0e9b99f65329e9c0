import Foundation

/// One field of a result row, as PostgreSQL sent it in text format.
public struct PQCell {
    /// The text bytes, or nil for SQL NULL. Valid only while the row's result is alive.
    public let bytes: UnsafeRawBufferPointer?
    /// The column's type OID.
    public let typeOID: UInt32
    /// The column's name, for error messages.
    public let columnName: String

    /// The field as a string (nil for NULL).
    public var string: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// The field's text, or a decoding error naming the column when it is NULL.
    public func requireString(for type: Any.Type) throws -> String {
        guard let string else { throw RowDecodingError(column: columnName, type: type, reason: "the value is NULL") }
        return string
    }
}

/// A row field could not be decoded as the requested Swift type.
public struct RowDecodingError: Error, Sendable, CustomStringConvertible {
    public var column: String
    public var typeName: String
    public var reason: String

    public init(column: String, type: Any.Type, reason: String) {
        self.column = column
        self.typeName = String(describing: type)
        self.reason = reason
    }

    public var description: String { "cannot decode column \"\(column)\" as \(typeName): \(reason)" }
}

/// A Swift type that can be read from a result field. Optional types read NULL as nil; all others
/// throw ``RowDecodingError`` on NULL.
public protocol PQDecodable {
    static func decode(from cell: PQCell) throws -> Self
}

extension Optional: PQDecodable where Wrapped: PQDecodable {
    public static func decode(from cell: PQCell) throws -> Wrapped? {
        cell.bytes == nil ? nil : try Wrapped.decode(from: cell)
    }
}

extension String: PQDecodable {
    public static func decode(from cell: PQCell) throws -> String { try cell.requireString(for: String.self) }
}

/// Integers parse straight from the field's bytes.
private func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, _ cell: PQCell) throws -> T {
    let text = try cell.requireString(for: T.self)
    guard let value = T(text) else {
        throw RowDecodingError(column: cell.columnName, type: T.self, reason: "\"\(text)\" is not a valid \(T.self)")
    }
    return value
}

extension Int16: PQDecodable {
    public static func decode(from cell: PQCell) throws -> Int16 { try decodeInteger(Int16.self, cell) }
}

extension Int32: PQDecodable {
    public static func decode(from cell: PQCell) throws -> Int32 { try decodeInteger(Int32.self, cell) }
}

extension Int64: PQDecodable {
    public static func decode(from cell: PQCell) throws -> Int64 { try decodeInteger(Int64.self, cell) }
}

extension Int: PQDecodable {
    public static func decode(from cell: PQCell) throws -> Int { try decodeInteger(Int.self, cell) }
}

private func decodeFloatingPoint(_ cell: PQCell, as type: Any.Type) throws -> Double {
    let text = try cell.requireString(for: type)
    switch text {
    case "NaN": return .nan
    case "Infinity": return .infinity
    case "-Infinity": return -.infinity
    default:
        guard let value = Double(text) else {
            throw RowDecodingError(column: cell.columnName, type: type, reason: "\"\(text)\" is not a number")
        }
        return value
    }
}

extension Double: PQDecodable {
    public static func decode(from cell: PQCell) throws -> Double { try decodeFloatingPoint(cell, as: Double.self) }
}

extension Float: PQDecodable {
    public static func decode(from cell: PQCell) throws -> Float { Float(try decodeFloatingPoint(cell, as: Float.self)) }
}

extension Bool: PQDecodable {
    public static func decode(from cell: PQCell) throws -> Bool {
        switch try cell.requireString(for: Bool.self) {
        case "t", "true": return true
        case "f", "false": return false
        case let other: throw RowDecodingError(column: cell.columnName, type: Bool.self, reason: "\"\(other)\" is not a boolean")
        }
    }
}

extension Decimal: PQDecodable {
    public static func decode(from cell: PQCell) throws -> Decimal {
        let text = try cell.requireString(for: Decimal.self)
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), text != "NaN" else {
            throw RowDecodingError(column: cell.columnName, type: Decimal.self, reason: "\"\(text)\" is not a decimal number")
        }
        return value
    }
}

extension UUID: PQDecodable {
    public static func decode(from cell: PQCell) throws -> UUID {
        let text = try cell.requireString(for: UUID.self)
        guard let value = UUID(uuidString: text) else {
            throw RowDecodingError(column: cell.columnName, type: UUID.self, reason: "\"\(text)\" is not a UUID")
        }
        return value
    }
}

extension Data: PQDecodable {
    /// Reads bytea in PostgreSQL's hex output format (`\x48656c6c6f`).
    public static func decode(from cell: PQCell) throws -> Data {
        guard let bytes = cell.bytes else {
            throw RowDecodingError(column: cell.columnName, type: Data.self, reason: "the value is NULL")
        }
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0 else {
            throw RowDecodingError(column: cell.columnName, type: Data.self, reason: "not bytea in hex format")
        }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var data = Data(capacity: (bytes.count - 2) / 2)
        var index = 2
        while index < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else {
                throw RowDecodingError(column: cell.columnName, type: Data.self, reason: "invalid hex digit")
            }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }
}

extension Date: PQDecodable {
    /// Reads timestamptz (and timestamp, taken as UTC) in PostgreSQL's ISO output style.
    public static func decode(from cell: PQCell) throws -> Date {
        let text = try cell.requireString(for: Date.self)
        guard let date = PQTimestamp.parse(text) else {
            throw RowDecodingError(column: cell.columnName, type: Date.self, reason: "\"\(text)\" is not an ISO timestamp")
        }
        return date
    }
}
