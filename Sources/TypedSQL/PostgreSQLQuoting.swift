/// PostgreSQL's quoting, done in Swift: the same text as libpq's `PQescapeIdentifier` and
/// `PQescapeLiteral` on a server with `standard_conforming_strings = on` (the default since 9.1).
///
/// Rendering SQL needs no connection: plans, `check` and the docs quote with this. An identifier
/// is wrapped in double quotes with each `"` doubled. A literal is wrapped in single quotes with each
/// `'` doubled; one that holds a backslash also has each `\` doubled and is written ` E'…'`, exactly
/// as libpq writes it, so that it means the same whatever `standard_conforming_strings` says.
/// A NUL ends the text, as it ends a C string for libpq.
public struct PostgreSQLQuoting: SQLQuoting, Sendable {
    public init() {}

    public func quoteIdentifier(_ identifier: String) -> String {
        Self.quote(Self.untilNUL(identifier), opening: "\"", doubling: .doubleQuote, orAlso: .doubleQuote)
    }

    public func quoteLiteral(_ literal: String) -> String {
        let text = Self.untilNUL(literal)
        return text.utf8.contains(.backslash)
            ? Self.quote(text, opening: " E'", doubling: .singleQuote, orAlso: .backslash)
            : Self.quote(text, opening: "'", doubling: .singleQuote, orAlso: .singleQuote)
    }

    /// `text` after `opening`, with each `mark` and `other` byte doubled, and `mark` at the end.
    /// Bytes, not characters: a quote followed by a combining mark is still a quote to PostgreSQL,
    /// and the ASCII bytes doubled here never occur inside another character's UTF-8.
    private static func quote(_ text: Substring, opening: String, doubling mark: UInt8, orAlso other: UInt8) -> String {
        let closing = String(decoding: CollectionOfOne(mark), as: UTF8.self)
        guard text.utf8.contains(where: { $0 == mark || $0 == other }) else { return opening + text + closing }
        var bytes = Array(opening.utf8)
        bytes.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            if byte == mark || byte == other { bytes.append(byte) }
            bytes.append(byte)
        }
        bytes.append(mark)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text up to the first NUL.
    private static func untilNUL(_ text: String) -> Substring {
        text[..<(text.utf8.firstIndex(of: 0) ?? text.endIndex)]
    }
}

private extension UInt8 {
    static let doubleQuote = UInt8(ascii: "\"")
    static let singleQuote = UInt8(ascii: "'")
    static let backslash = UInt8(ascii: "\\")
}

extension SQLQuoting where Self == PostgreSQLQuoting {
    /// PostgreSQL's quoting, without a connection.
    public static var postgreSQL: PostgreSQLQuoting { PostgreSQLQuoting() }
}
