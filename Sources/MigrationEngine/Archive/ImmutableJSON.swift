import EntityModel
import TypedSQL

/// `pg_catalog.jsonb_build_object(k, v, …)::text` of text values, written with IMMUTABLE functions
/// only (`replace`, `chr`, `||`, `CASE`). Citus refuses a STABLE function (as `jsonb_build_object`
/// is) with column references in an `UPDATE` (0A000), and the archive notes and compares what a
/// step left in a dropped column's row with such an `UPDATE`. The text is exactly what jsonb
/// prints, so entries written either way compare equal: keys in jsonb's order (shorter first, then
/// bytewise), `": "` and `", "` between, strings escaped as jsonb escapes them, NULL as `null`.
enum ImmutableJSON {
    /// The object of `members`, each a key and an SQL expression of type `text` (NULL allowed).
    static func object(_ members: [(key: String, value: SQL)]) -> SQL {
        var byKey: [String: SQL] = [:]
        for member in members { byKey[member.key] = member.value }   // a repeated key: the last wins, as in jsonb
        let keys = byKey.keys.sorted { lhs, rhs in
            lhs.utf8.count != rhs.utf8.count ? lhs.utf8.count < rhs.utf8.count : Array(lhs.utf8).lexicographicallyPrecedes(Array(rhs.utf8))
        }
        guard !keys.isEmpty else { return "'{}'" }
        let parts = keys.enumerated().map { index, key -> SQL in
            "\(literal: (index == 0 ? "{" : ", ") + escaped(key) + ": ") || \(string(byKey[key]!))"
        }
        return "(\(parts, joinedBy: " || ") || '}')"
    }

    /// The JSON text of the `text` expression `value`: a string literal, or `null`.
    static func string(_ value: SQL) -> SQL {
        var escaped: SQL = "pg_catalog.replace(pg_catalog.replace(\(value), \(literal: "\\"), \(literal: "\\\\")), '\"', \(literal: "\\\""))"
        for code in 1..<0x20 {
            escaped = "pg_catalog.replace(\(escaped), pg_catalog.chr(\(int: code)), \(literal: controlEscape(code)))"
        }
        return "(CASE WHEN (\(value)) IS NULL THEN 'null' ELSE '\"' || \(escaped) || '\"' END)"
    }

    /// A key, escaped as jsonb escapes strings, in double quotes.
    private static func escaped(_ key: String) -> String {
        JSONString.quoted(key, .jsonb)
    }

    /// How jsonb writes the control character `code` (1…31).
    private static func controlEscape(_ code: Int) -> String {
        switch code {
        case 8: return "\\b"
        case 9: return "\\t"
        case 10: return "\\n"
        case 12: return "\\f"
        case 13: return "\\r"
        default:
            let hex = String(code, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }
}
