import CLibPQ
import Foundation

/// Writes rows for `COPY … FROM STDIN` in PostgreSQL's text format, buffering them and sending
/// full buffers to the server. Lengths are UTF-8 byte counts, so any text is sent exactly.
///
/// Strings, integers and UUIDs are encoded straight into the buffer, without intermediate
/// allocations. Obtain one from ``Connection/copyIn(_:_:)``.
public struct CopyInWriter: ~Copyable {
    private let connection: Connection
    /// The bytes not yet sent: `storage[0..<count]`, in room for `capacity`.
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    private var fieldsInRow = 0
    private let flushThreshold: Int
    /// Rows written so far.
    public private(set) var rowCount = 0

    init(connection: Connection, bufferSize: Int) {
        self.connection = connection
        self.flushThreshold = max(bufferSize, 1)
        self.capacity = max(bufferSize, 1) + 4096
        self.storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Appends one row; nil is SQL NULL.
    public mutating func writeRow(_ fields: [String?]) throws {
        for field in fields { append(field) }
        try endRow()
    }

    /// Appends one text field to the current row (nil is NULL).
    public mutating func append(_ field: String?) {
        separate()
        guard var field else { appendNull(); return }
        field.withUTF8 { appendEscaped($0) }
    }

    /// Appends an integer field without going through `String`.
    public mutating func append<I: FixedWidthInteger>(_ value: I?) {
        separate()
        guard let value else { appendNull(); return }
        if let small = Int64(exactly: value) {
            appendDecimal(small)
        } else {
            // Wider than 64 bits (UInt64 above Int64.max, 128-bit types): rare, so the slow way.
            appendEscaped(String(value))
        }
    }

    // Concrete overloads: without them, Swift prefers `append(_: (any PQEncodable)?)` over
    // the generic one above for these types, and every integer would go through `String`.

    /// Appends an integer field without going through `String`.
    public mutating func append(_ value: Int?) { separate(); if let value { appendDecimal(Int64(value)) } else { appendNull() } }
    /// Appends an integer field without going through `String`.
    public mutating func append(_ value: Int64?) { separate(); if let value { appendDecimal(value) } else { appendNull() } }
    /// Appends an integer field without going through `String`.
    public mutating func append(_ value: Int32?) { separate(); if let value { appendDecimal(Int64(value)) } else { appendNull() } }
    /// Appends an integer field without going through `String`.
    public mutating func append(_ value: Int16?) { separate(); if let value { appendDecimal(Int64(value)) } else { appendNull() } }

    /// Appends a UUID field in its canonical lowercase form, without going through `String`.
    public mutating func append(_ value: UUID?) {
        separate()
        guard let value else { appendNull(); return }
        reserve(36)
        var out = storage + count
        withUnsafeBytes(of: value.uuid) { bytes in
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out.pointee = UInt8(ascii: "-")
                    out += 1
                }
                let byte = bytes[index]
                out[0] = Self.hexDigit(byte >> 4)
                out[1] = Self.hexDigit(byte & 0x0f)
                out += 2
            }
        }
        count += 36
    }

    /// Appends any encodable value in its text form (binary-format values are not supported here).
    public mutating func append(_ value: (any PQEncodable)?) {
        let bind = value?.postgresBind ?? .null
        separate()
        guard let bytes = bind.bytes else { appendNull(); return }
        if bind.format == .binary {
            // bytea in hex form, its backslash escaped for COPY: `\\x0aff`.
            reserve(3 + bytes.count * 2)
            storage[count] = UInt8(ascii: "\\")
            storage[count + 1] = UInt8(ascii: "\\")
            storage[count + 2] = UInt8(ascii: "x")
            count += 3
            for byte in bytes {
                storage[count] = Self.hexDigit(byte >> 4)
                storage[count + 1] = Self.hexDigit(byte & 0x0f)
                count += 2
            }
        } else {
            bytes.withUnsafeBufferPointer { appendEscaped($0) }
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
    }

    /// Ends the current row, sending the buffer when it is full.
    public mutating func endRow() throws {
        reserve(1)
        storage[count] = UInt8(ascii: "\n")
        count += 1
        fieldsInRow = 0
        rowCount += 1
        if count >= flushThreshold { try flush() }
    }

    @inline(__always)
    private mutating func separate() {
        if fieldsInRow > 0 {
            reserve(1)
            storage[count] = UInt8(ascii: "\t")
            count += 1
        }
        fieldsInRow += 1
    }

    private mutating func appendNull() {
        reserve(2)
        storage[count] = UInt8(ascii: "\\")
        storage[count + 1] = UInt8(ascii: "N")
        count += 2
    }

    private mutating func appendEscaped(_ text: String) {
        var text = text
        text.withUTF8 { appendEscaped($0) }
    }

    /// Copies text, escaping backslash, tab, newline and carriage return.
    private mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(bytes.count * 2)
        var out = storage + count
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\\"): out[0] = UInt8(ascii: "\\"); out[1] = UInt8(ascii: "\\"); out += 2
            case UInt8(ascii: "\t"): out[0] = UInt8(ascii: "\\"); out[1] = UInt8(ascii: "t"); out += 2
            case UInt8(ascii: "\n"): out[0] = UInt8(ascii: "\\"); out[1] = UInt8(ascii: "n"); out += 2
            case UInt8(ascii: "\r"): out[0] = UInt8(ascii: "\\"); out[1] = UInt8(ascii: "r"); out += 2
            default: out.pointee = byte; out += 1
            }
        }
        count = out - storage
    }

    private mutating func appendDecimal(_ value: Int64) {
        reserve(20)
        var magnitude = value.magnitude
        if value < 0 {
            storage[count] = UInt8(ascii: "-")
            count += 1
        }
        var digits = 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        var position = count + digits
        repeat {
            position -= 1
            storage[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        count += digits
    }

    /// Makes room for `extra` more bytes, growing the buffer (a single row may exceed it).
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private mutating func grow(to needed: Int) {
        let newCapacity = max(capacity * 2, needed)
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.update(from: storage, count: count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    mutating func flush() throws {
        guard count > 0 else { return }
        let status = storage.withMemoryRebound(to: CChar.self, capacity: count) {
            PQputCopyData(connection.handle, $0, Int32(count))
        }
        guard status == 1 else { throw PQError.client(connection.handle, "COPY data could not be sent") }
        count = 0
    }
}
