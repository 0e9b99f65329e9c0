import CLibPQ

/// Writes rows for `COPY … FROM STDIN` in PostgreSQL's text format, buffering them and sending
/// full buffers to the server. Lengths are UTF-8 byte counts, so any text is sent exactly.
///
/// Obtain one from ``Connection/copyIn(_:_:)``.
public struct CopyInWriter: ~Copyable {
    private let connection: Connection
    private var buffer: [UInt8] = []
    private var fieldsInRow = 0
    private let flushThreshold: Int
    /// Rows written so far.
    public private(set) var rowCount = 0

    init(connection: Connection, bufferSize: Int) {
        self.connection = connection
        self.flushThreshold = bufferSize
        buffer.reserveCapacity(bufferSize + 4096)
    }

    /// Appends one row; nil is SQL NULL.
    public mutating func writeRow(_ fields: [String?]) throws {
        for field in fields { append(field) }
        try endRow()
    }

    /// Appends one text field to the current row (nil is NULL).
    public mutating func append(_ field: String?) {
        separate()
        guard let field else { buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")]); return }
        for byte in field.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "\t"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "t"))
            case UInt8(ascii: "\n"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "r"))
            default: buffer.append(byte)
            }
        }
    }

    /// Appends an integer field without going through `String`.
    public mutating func append<I: FixedWidthInteger>(_ value: I?) {
        separate()
        guard let value else { buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")]); return }
        if value == 0 { buffer.append(UInt8(ascii: "0")); return }
        var magnitude = value.magnitude
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        let start = buffer.count
        while magnitude > 0 {
            buffer.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        buffer[start...].reverse()
    }

    /// Appends any encodable value in its text form (binary-format values are not supported here).
    public mutating func append(_ value: (any PostgresEncodable)?) {
        let bind = value?.postgresBind ?? .null
        if bind.format == .binary, let bytes = bind.bytes {
            append("\\x" + bytes.map { String($0, radix: 16).leftPadded(2) }.joined())
        } else {
            append(bind.bytes.map { String(decoding: $0, as: UTF8.self) })
        }
    }

    /// Ends the current row, sending the buffer when it is full.
    public mutating func endRow() throws {
        buffer.append(UInt8(ascii: "\n"))
        fieldsInRow = 0
        rowCount += 1
        if buffer.count >= flushThreshold { try flush() }
    }

    private mutating func separate() {
        if fieldsInRow > 0 { buffer.append(UInt8(ascii: "\t")) }
        fieldsInRow += 1
    }

    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        let status = buffer.withUnsafeBufferPointer { bytes in
            bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                PQputCopyData(connection.handle, $0, Int32(bytes.count))
            }
        }
        guard status == 1 else { throw PostgresError.client(connection.handle, "COPY data could not be sent") }
        buffer.removeAll(keepingCapacity: true)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
