import CLibPQ
import Foundation

/// Helpers for conninfo strings and `postgres://` URIs.
public enum ConnectionString {
    /// The string with any password replaced by `***`, for logs and messages.
    ///
    /// Both forms are handled: `postgres://user:secret@host/db?password=x` and
    /// `host=h password=secret`. A string libpq cannot parse is not printed at all.
    public static func redacted(_ conninfo: String) -> String {
        if conninfo.hasPrefix("postgres://") || conninfo.hasPrefix("postgresql://") {
            return redactedURI(conninfo)
        }
        guard let options = parse(conninfo) else { return "<unparseable connection string>" }
        return options.map { key, value in
            "\(key)=\(key == "password" ? "***" : quoteValue(value))"
        }.joined(separator: " ")
    }

    /// Parses a conninfo string or URI through libpq into its keywords and values, in libpq's order
    /// (only the keywords that were set). Returns nil if libpq cannot parse it.
    public static func parse(_ conninfo: String) -> [(key: String, value: String)]? {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &errorMessage) else {
            if let errorMessage { PQfreemem(errorMessage) }
            return nil
        }
        defer { PQconninfoFree(options) }
        var result: [(String, String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { result.append((String(cString: keyword), String(cString: value))) }
            option += 1
        }
        return result
    }

    private static func quoteValue(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0.isWhitespace || $0 == "'" || $0 == "\\" }
        guard needsQuotes else { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    private static func redactedURI(_ uri: String) -> String {
        guard var components = URLComponents(string: uri) else { return "<unparseable connection URI>" }
        if components.password != nil { components.password = "***" }
        if let items = components.queryItems {
            components.queryItems = items.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
        }
        return components.string ?? "<unparseable connection URI>"
    }
}
