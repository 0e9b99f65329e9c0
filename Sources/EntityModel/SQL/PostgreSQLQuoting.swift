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
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in Self.untilNUL(identifier) {
            if scalar == "\"" { quoted.append(scalar) }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }

    public func quoteLiteral(_ literal: String) -> String {
        let text = Self.untilNUL(literal)
        var quoted = String.UnicodeScalarView((text.contains("\\") ? " E'" : "'").unicodeScalars)
        for scalar in text {
            if scalar == "'" || scalar == "\\" { quoted.append(scalar) }
            quoted.append(scalar)
        }
        quoted.append("'")
        return String(quoted)
    }

    /// The text's scalars up to the first NUL. Scalars, not characters: a quote followed by a
    /// combining mark is still a quote to PostgreSQL.
    private static func untilNUL(_ text: String) -> Substring.UnicodeScalarView {
        let scalars = text.unicodeScalars
        return Substring.UnicodeScalarView(scalars[..<(scalars.firstIndex(of: "\0") ?? scalars.endIndex)])
    }
}

extension SQLQuoting where Self == PostgreSQLQuoting {
    /// PostgreSQL's quoting, without a connection.
    public static var postgreSQL: PostgreSQLQuoting { PostgreSQLQuoting() }
}
