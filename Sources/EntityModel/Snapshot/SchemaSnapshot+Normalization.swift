/// Removes a schema's own qualifier (`tenant_a.` or `"Tenant A".`) from text that PostgreSQL's
/// catalog functions print: types, defaults, check definitions, index expressions.
///
/// Those functions qualify a name only when its schema is not on `search_path`, so the same default
/// reads `nextval('recipe_id_seq'::regclass)` or `nextval('tenant_a.recipe_id_seq'::regclass)`
/// depending on the session. Stripping makes snapshots of two schemas comparable. A match must start
/// at an identifier boundary. Other quoted identifiers, and string literals, are left alone, except
/// at the start of a literal cast to an object-identifier type (`'tenant_a.seq'::regclass`), where
/// PostgreSQL writes a qualified name.
package struct SchemaQualifierStripper {
    /// The qualifier to remove: the schema as `quote_ident` prints it, then `.`.
    private let prefix: [UInt8]

    package init(quotedSchema: String) {
        prefix = Array((quotedSchema + ".").utf8)
    }

    package func strip(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.count > prefix.count else { return text }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if matchesPrefix(bytes, at: index) {
                index += prefix.count
                continue
            }
            switch byte {
            case UInt8(ascii: "'"):
                let escapes = index > 0 && (bytes[index - 1] == UInt8(ascii: "E") || bytes[index - 1] == UInt8(ascii: "e"))
                let end = Self.endOfQuoted(bytes, from: index, quote: byte, backslashEscapes: escapes)
                if Self.isFollowedByRegCast(bytes, at: end), end - index - 2 > prefix.count,
                   bytes[(index + 1)..<(index + 1 + prefix.count)].elementsEqual(prefix) {
                    output.append(byte)
                    output.append(contentsOf: bytes[(index + 1 + prefix.count)..<end])
                } else {
                    output.append(contentsOf: bytes[index..<end])
                }
                index = end
            case UInt8(ascii: "\""):
                let end = Self.endOfQuoted(bytes, from: index, quote: byte, backslashEscapes: false)
                output.append(contentsOf: bytes[index..<end])
                index = end
            default:
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private func matchesPrefix(_ bytes: [UInt8], at index: Int) -> Bool {
        guard index + prefix.count < bytes.count else { return false }
        if index > 0 {
            let previous = bytes[index - 1]
            if Self.isIdentifierByte(previous) || previous == UInt8(ascii: ".") || previous == UInt8(ascii: "\"") {
                return false
            }
        }
        return bytes[index..<(index + prefix.count)].elementsEqual(prefix)
    }

    /// The index just past the quoted text that starts at `start` (a doubled quote stays inside).
    private static func endOfQuoted(_ bytes: [UInt8], from start: Int, quote: UInt8, backslashEscapes: Bool) -> Int {
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if backslashEscapes && byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == quote {
                if index + 1 < bytes.count && bytes[index + 1] == quote {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return bytes.count
    }

    /// Whether `::reg` (`::regclass`, `::regproc`, `::regtype`, …) follows at `index`.
    private static func isFollowedByRegCast(_ bytes: [UInt8], at index: Int) -> Bool {
        let cast = Array("::reg".utf8)
        return index + cast.count <= bytes.count && bytes[index..<(index + cast.count)].elementsEqual(cast)
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"):
            true
        default:
            byte >= 0x80
        }
    }
}
