/// Splits PostgreSQL's text COPY format into rows of fields, undoing its escapes.
///
/// Feed it the chunks of ``Connection/copyOut(_:chunkSize:_:)``; chunks hold whole rows.
public struct CopyTextParser {
    public init() {}

    /// Parses every row in `chunk`, calling `onRow` with its fields (nil for `\N`).
    public func parseRows(_ chunk: UnsafeRawBufferPointer, _ onRow: ([String?]) throws -> Void) rethrows {
        var fields: [String?] = []
        var field: [UInt8] = []
        var isNull = false
        var index = 0
        let bytes = chunk.bindMemory(to: UInt8.self)
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\t"), UInt8(ascii: "\n"):
                fields.append(isNull ? nil : String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
                isNull = false
                if byte == UInt8(ascii: "\n") {
                    try onRow(fields)
                    fields.removeAll(keepingCapacity: true)
                }
            case UInt8(ascii: "\\") where index + 1 < bytes.count:
                index += 1
                switch bytes[index] {
                case UInt8(ascii: "N"): isNull = true
                case UInt8(ascii: "t"): field.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "n"): field.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "r"): field.append(UInt8(ascii: "\r"))
                case UInt8(ascii: "b"): field.append(8)
                case UInt8(ascii: "f"): field.append(12)
                case UInt8(ascii: "v"): field.append(11)
                case let other: field.append(other)
                }
            default:
                field.append(byte)
            }
            index += 1
        }
    }
}
